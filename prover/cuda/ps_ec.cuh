/* Device point arithmetic in XYZZ coordinates for a short Weierstrass curve with a = 0,
 * written once over an abstract field and instantiated twice (G1 over Fp, G2 over Fp2)
 * by including this file with the EC_* macros set (see ps_curves.cuh). Formulas:
 * add-2008-s, madd-2008-s, dbl-2008-s-1 and mdbl-2008-s-1 of the Explicit-Formulas
 * Database (hyperelliptic.org/EFD), with the special cases (infinity, P = Q, P = -Q)
 * handled, since Pippenger buckets meet all of them. */

/* Expected: EC_INL (storage and inlining), EC_F (field type), EC_AFF / EC_XYZZ (point types), EC_NAME(x) (prefixes a
 * function name) and EC_FN(op) (the field's device function, e.g. fp_mul_d; squares go
 * through EC_FN(sqr), cheaper than a product in both fields; each y coordinate is a
 * difference of two products, EC_FN(mulsub), reduced once). */

EC_INL void EC_NAME(set_inf)(EC_XYZZ *p) {
  EC_FN(set_zero)(&p->x);
  EC_FN(set_one)(&p->y);
  EC_FN(set_zero)(&p->zz);
  EC_FN(set_zero)(&p->zzz);
}
EC_INL int EC_NAME(is_inf)(const EC_XYZZ *p) { return EC_FN(is_zero)(&p->zz); }
EC_INL int EC_NAME(aff_is_inf)(const EC_AFF *a) {
  return EC_FN(is_zero)(&a->x) & EC_FN(is_zero)(&a->y);
}

/* p = 2 * (x, y) for an affine point (not infinity). */
EC_INL void EC_NAME(mdbl)(EC_XYZZ *p, const EC_F *x, const EC_F *y) {
  EC_F u, v, w, s, m, t;
  EC_FN(add)(&u, y, y);
  EC_FN(sqr)(&v, &u);
  EC_FN(mul)(&w, &u, &v);
  EC_FN(mul)(&s, x, &v);
  EC_FN(sqr)(&t, x);
  EC_FN(add)(&m, &t, &t);
  EC_FN(add)(&m, &m, &t);
  EC_FN(sqr)(&t, &m);
  EC_FN(sub)(&t, &t, &s);
  EC_FN(sub)(&p->x, &t, &s);
  EC_FN(sub)(&t, &s, &p->x);
  EC_FN(mulsub)(&p->y, &m, &t, y, &w); /* M (S - X3) - Y1 W, one reduction */
  p->zz = v;
  p->zzz = w;
}

/* p = 2 p. */
EC_INL void EC_NAME(dbl)(EC_XYZZ *p) {
  EC_F u, v, w, s, m, t;
  EC_FN(add)(&u, &p->y, &p->y);
  EC_FN(sqr)(&v, &u);
  EC_FN(mul)(&w, &u, &v);
  EC_FN(mul)(&s, &p->x, &v);
  EC_FN(sqr)(&t, &p->x);
  EC_FN(add)(&m, &t, &t);
  EC_FN(add)(&m, &m, &t);
  EC_FN(sqr)(&t, &m);
  EC_FN(sub)(&t, &t, &s);
  EC_FN(sub)(&p->x, &t, &s);
  EC_FN(sub)(&t, &s, &p->x);
  EC_FN(mulsub)(&p->y, &m, &t, &p->y, &w);
  EC_FN(mul)(&p->zz, &p->zz, &v);
  EC_FN(mul)(&p->zzz, &p->zzz, &w);
}

/* p += (x2, y2), an affine point that is not infinity. */
EC_INL void EC_NAME(madd)(EC_XYZZ *p, const EC_F *x2, const EC_F *y2) {
  if (EC_NAME(is_inf)(p)) {
    p->x = *x2;
    p->y = *y2;
    EC_FN(set_one)(&p->zz);
    EC_FN(set_one)(&p->zzz);
    return;
  }
  EC_F P, R, pp, ppp, q, t;
  EC_FN(mul)(&P, x2, &p->zz);
  EC_FN(sub)(&P, &P, &p->x);
  EC_FN(mul)(&R, y2, &p->zzz);
  EC_FN(sub)(&R, &R, &p->y);
  if (EC_FN(is_zero)(&P)) {
    if (EC_FN(is_zero)(&R))
      EC_NAME(mdbl)(p, x2, y2);
    else
      EC_NAME(set_inf)(p);
    return;
  }
  EC_FN(sqr)(&pp, &P);
  EC_FN(mul)(&ppp, &P, &pp);
  EC_FN(mul)(&q, &p->x, &pp);
  EC_FN(sqr)(&t, &R);
  EC_FN(sub)(&t, &t, &ppp);
  EC_FN(sub)(&t, &t, &q);
  EC_FN(sub)(&p->x, &t, &q);
  EC_FN(sub)(&t, &q, &p->x);
  EC_FN(mulsub)(&p->y, &R, &t, &p->y, &ppp); /* R (Q - X3) - Y1 PPP */
  EC_FN(mul)(&p->zz, &p->zz, &pp);
  EC_FN(mul)(&p->zzz, &p->zzz, &ppp);
}

/* p += q (XYZZ). */
EC_INL void EC_NAME(add)(EC_XYZZ *p, const EC_XYZZ *q) {
  if (EC_NAME(is_inf)(q)) return;
  if (EC_NAME(is_inf)(p)) {
    *p = *q;
    return;
  }
  EC_F u1, s1, P, R, pp, ppp, t, w;
  EC_FN(mul)(&u1, &p->x, &q->zz);
  EC_FN(mul)(&P, &q->x, &p->zz);
  EC_FN(sub)(&P, &P, &u1);
  EC_FN(mul)(&s1, &p->y, &q->zzz);
  EC_FN(mul)(&R, &q->y, &p->zzz);
  EC_FN(sub)(&R, &R, &s1);
  if (EC_FN(is_zero)(&P)) {
    if (EC_FN(is_zero)(&R))
      EC_NAME(dbl)(p);
    else
      EC_NAME(set_inf)(p);
    return;
  }
  EC_FN(sqr)(&pp, &P);
  EC_FN(mul)(&ppp, &P, &pp);
  EC_FN(mul)(&w, &u1, &pp); /* Q */
  EC_FN(sqr)(&t, &R);
  EC_FN(sub)(&t, &t, &ppp);
  EC_FN(sub)(&t, &t, &w);
  EC_FN(sub)(&p->x, &t, &w);
  EC_FN(sub)(&t, &w, &p->x);
  EC_FN(mulsub)(&p->y, &R, &t, &s1, &ppp); /* R (U1 PP - X3) - S1 PPP */
  EC_FN(mul)(&p->zz, &p->zz, &q->zz);
  EC_FN(mul)(&p->zz, &p->zz, &pp);
  EC_FN(mul)(&p->zzz, &p->zzz, &q->zzz);
  EC_FN(mul)(&p->zzz, &p->zzz, &ppp);
}
