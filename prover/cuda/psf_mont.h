/* Montgomery multiplication r = a*b/W^N mod m (W = 2^32, N even) written as a sequence
 * of carry-chain operations, so that one text serves two masters: the CUDA backend maps
 * the operations onto PTX (ps_field.cuh) and a plain-C test maps them onto an emulated
 * carry flag (tests/test_montmul.c), which checks the sequence against the reference
 * field code in CI, where there is no GPU.
 *
 * Why this shape. A PTX pair `madc.lo.cc d0, x, y, d0; madc.hi.cc d1, x, y, d1` (the low
 * and high words of one product added into adjacent limbs, carry in and out) compiles to
 * one SASS instruction on sm_90 (IMAD.WIDE.U32.X), whereas a row of products a[j]*y added
 * limb by limb needs an IMAD and a separate carry add per word. So each row of the
 * schoolbook product is split into two chains whose products never share a limb: the
 * even limbs of a land on limb pairs (0,1), (2,3), ... of accumulator p, the odd limbs on
 * pairs (1,2), (3,4), ... of accumulator q. The row value is p + q (+ one pending carry
 * bit c at limb 0). Montgomery reduction (CIOS: m = limb0 * -m^-1, add m*mod, drop limb
 * 0) uses the same two chains on the modulus. After the reduction limb 0 of p + q is 0
 * mod W, so its carry is 1 exactly when p[0] != 0; that bit (the carry of p[0] + W - 1)
 * is added at limb 0 of q just before the next odd chain, whose first product lands on
 * limb 1, so the carry of that add enters the chain at the right place. Dropping limb 0
 * turns the even accumulator's pairs into odd ones, so p and q swap roles every row.
 *
 * Bounds (a, b < m < W^N / 2): every row keeps p + q + c < 2m after the shift, so each
 * accumulator fits in N+1 limbs before it and the chains that end without carry-out
 * lose nothing. The result is < 2m; the caller subtracts m once if needed.
 *
 * The including file defines, for uint32_t lvalues d and values x, y:
 *   PSF_OP_MUL_LO(d,x,y) d = lo(x*y)          PSF_OP_MUL_HI(d,x,y) d = hi(x*y)
 *   PSF_OP_MAD_LO_CC(d,x,y)  d += lo(x*y), carry out
 *   PSF_OP_MADC_LO_CC(d,x,y) d += lo(x*y) + carry, carry out   (likewise MADC_HI_CC)
 *   PSF_OP_MADC_HI(d,x,y)    d += hi(x*y) + carry, no carry out
 *   PSF_OP_ADD_CC(d,x) d += x, carry out     PSF_OP_ADDC_CC(d,x) d += x + carry, carry out
 *   PSF_OP_ADDC(d,x)   d += x + carry, no carry out
 *   PSF_OP_MADC_HI_Z(d,x,y) d = hi(x*y) + carry      PSF_OP_ADDC_Z(d) d = carry
 *   PSF_OP_SUB_CC(d,x) d -= x, borrow out    PSF_OP_SUBC_CC(d,x) d -= x + borrow, borrow out
 *   PSF_OP_SUBC(d,x)   d -= x + borrow, no borrow out
 *   PSF_OP_ADD2_CC(d,x,y) d = x + y, carry out  PSF_OP_ADDC2_CC(d,x,y) d = x + y + carry, carry out
 *   PSF_OP_ADDC2(d,x,y) d = x + y + carry      PSF_OP_MADC_LO_CC_Z(d,x,y) d = lo(x*y) + carry, carry out
 *   (the last seven for PSF_MONT_KARA_R1 only)
 *   PSF_OP_SUB2_CC(d,x,y) d = x - y, borrow out  PSF_OP_SUBC2_CC(d,x,y) d = x - y - borrow, borrow out
 *   PSF_OP_SUBC2_W(d,x,y) d = x - y - borrow, wrapping (no borrow out; may wrap)
 *   (these three, ADD2_CC, ADDC2_CC and ADDC_Z for PSF_ADD_LAZY and PSF_SUB_LAZY)
 * and then uses PSF_MONT_BODY(N, r, a, b, MOD, INV) (or PSF_MONT_SUM, PSF_MONT_SQR) with
 * a, b, MOD readable as x[i] and r writable as r[i] (i < N); INV = -MOD^-1 mod W.
 * PSF_MONT_BODY_R1 is the same for a modulus whose two low limbs are 1 and W - 1
 * (BLS12-381's r; PSF_MONT_REDUCE_R1_). */
#ifndef PROVESIM_PSF_MONT_H
#define PROVESIM_PSF_MONT_H

#ifdef __CUDACC__
#define PSF_UNROLL _Pragma("unroll")
#else
#define PSF_UNROLL
#endif
/* A test may fill the accumulators of the squaring and of PSF_MUL_FULL with a pattern,
 * so that a limb read before it is written shows up as a wrong result. */
#ifndef PSF_SQR_POISON_
#define PSF_SQR_POISON_(x) ((void)0)
#endif

/* One reduction step on (p, q): m from limb 0, add m*MOD over both chains. With R1 (a
 * constant) the modulus has MOD[0] = 1 and MOD[1] = W - 1 (so INV = W - 1): the words of
 * m*MOD[0] are (m, 0) and those of m*MOD[1] = (m - 1)W + (W - m) are (-m, m - 1), or (0, 0)
 * when m = 0, so both enter their chains as plain additions of the same words the
 * products would give (same carries, same bounds) and two of the N products a step go.
 * On sm_90 that is 16 fewer wide multiplications of the 128 in an Fr product. The words
 * are taken the cheap way: m = -t for the limb sum t = p[0] + q[0], so -m is t itself (no
 * negation), and m - 1 or 0 is max(m, 1) - 1 (a min/max and an addition, where m - (m != 0)
 * takes a compare, a select and a subtraction): 8 fewer instructions a product, most of
 * them off the multiplier's pipe (docs/performance.md, "Fewer instructions in the
 * Montgomery product"). */
#define PSF_MONT_REDUCE_STEP_(N, p, q, MOD, INV, R1)                                         \
  do {                                                                                     \
    uint32_t t_ = p[0] + q[0], m_ = t_ * (uint32_t)(INV);                                  \
    uint32_t l_ = (R1) ? t_ : 0u, h_ = (R1) ? (m_ > 1u ? m_ : 1u) - 1u : 0u;                \
    if (R1) {                                                                              \
      PSF_OP_ADD_CC(p[0], m_);                                                             \
      PSF_OP_ADDC_CC(p[1], 0u);                                                            \
    } else {                                                                               \
      PSF_OP_MAD_LO_CC(p[0], MOD[0], m_);                                                  \
      PSF_OP_MADC_HI_CC(p[1], MOD[0], m_);                                                 \
    }                                                                                      \
    PSF_UNROLL for (int k_ = 1; k_ < (N) / 2; k_++) {                                      \
      PSF_OP_MADC_LO_CC(p[2 * k_], MOD[2 * k_], m_);                                       \
      PSF_OP_MADC_HI_CC(p[2 * k_ + 1], MOD[2 * k_], m_);                                   \
    }                                                                                      \
    PSF_OP_ADDC(p[N], 0u);                                                                 \
    if (R1) {                                                                              \
      PSF_OP_ADD_CC(q[1], l_);                                                             \
      PSF_OP_ADDC_CC(q[2], h_);                                                            \
    } else {                                                                               \
      PSF_OP_MAD_LO_CC(q[1], MOD[1], m_);                                                  \
      PSF_OP_MADC_HI_CC(q[2], MOD[1], m_);                                                 \
    }                                                                                      \
    PSF_UNROLL for (int k_ = 1; k_ < (N) / 2 - 1; k_++) {                                  \
      PSF_OP_MADC_LO_CC(q[2 * k_ + 1], MOD[2 * k_ + 1], m_);                               \
      PSF_OP_MADC_HI_CC(q[2 * k_ + 2], MOD[2 * k_ + 1], m_);                               \
    }                                                                                      \
    PSF_OP_MADC_LO_CC(q[(N) - 1], MOD[(N) - 1], m_);                                       \
    PSF_OP_MADC_HI(q[N], MOD[(N) - 1], m_);                                                \
  } while (0)
#define PSF_MONT_REDUCE_(N, p, q, MOD, INV) PSF_MONT_REDUCE_STEP_(N, p, q, MOD, INV, 0)
#define PSF_MONT_REDUCE_R1_(N, p, q, MOD, INV) PSF_MONT_REDUCE_STEP_(N, p, q, MOD, INV, 1)

/* Row i >= 1 of the product: X += a_even * bi on pairs (0,1)..(N-2,N-1), carry to X[N];
 * Y += c at limb 0 (CIN(Y[0], c): PSF_CIN_BIT_ for a bit c, PSF_CIN_NZ_ for a limb c whose
 * nonzero-ness is the bit), then Y += a_odd * bi on pairs (1,2)..(N-1,N). */
#define PSF_MONT_ROW_(N, X, Y, a, bi, c) PSF_MONT_ROW_CIN_(N, X, Y, a, bi, PSF_CIN_BIT_, c)
#define PSF_CIN_BIT_(y, c) PSF_OP_ADD_CC(y, c)
/* y += (z != 0), carry out, for an lvalue z it may overwrite: z + (W - 1) carries exactly
 * when z != 0, and that carry goes into y. Two additions, where materialising the bit
 * first takes a compare, a select and the addition (a product's rows after the first take
 * their pending carry this way). */
#define PSF_CIN_NZ_(y, z)                                                                    \
  do {                                                                                     \
    PSF_OP_ADD_CC(z, 0xffffffffu);                                                         \
    PSF_OP_ADDC_CC(y, 0u);                                                                 \
  } while (0)
#define PSF_MONT_ROW_CIN_(N, X, Y, a, bi, CIN, c)                                           \
  do {                                                                                     \
    PSF_OP_MAD_LO_CC(X[0], a[0], bi);                                                      \
    PSF_OP_MADC_HI_CC(X[1], a[0], bi);                                                     \
    PSF_UNROLL for (int k_ = 1; k_ < (N) / 2; k_++) {                                      \
      PSF_OP_MADC_LO_CC(X[2 * k_], a[2 * k_], bi);                                         \
      PSF_OP_MADC_HI_CC(X[2 * k_ + 1], a[2 * k_], bi);                                     \
    }                                                                                      \
    PSF_OP_ADDC(X[N], 0u);                                                                 \
    CIN(Y[0], c);                                                                          \
    PSF_UNROLL for (int k_ = 0; k_ < (N) / 2 - 1; k_++) {                                  \
      PSF_OP_MADC_LO_CC(Y[2 * k_ + 1], a[2 * k_ + 1], bi);                                 \
      PSF_OP_MADC_HI_CC(Y[2 * k_ + 2], a[2 * k_ + 1], bi);                                 \
    }                                                                                      \
    PSF_OP_MADC_LO_CC(Y[(N) - 1], a[(N) - 1], bi);                                         \
    PSF_OP_MADC_HI(Y[N], a[(N) - 1], bi);                                                  \
  } while (0)

/* Drops limb 0 of both accumulators (limbs move down one; the top limb becomes 0). After
 * the shift the even accumulator's pairs sit on odd limbs and the odd one's on even
 * limbs, so the next row swaps their roles and every product keeps its register pair. */
#define PSF_MONT_SHIFT_(N, p, q)                                                             \
  do {                                                                                     \
    PSF_UNROLL for (int j_ = 0; j_ < (N); j_++) {                                          \
      p[j_] = p[j_ + 1];                                                                   \
      q[j_] = q[j_ + 1];                                                                   \
    }                                                                                      \
    p[N] = 0;                                                                              \
    q[N] = 0;                                                                              \
  } while (0)

#define PSF_MONT_BODY_(N, r, a, b, MOD, INV, REDUCE, KX, C, D)                              \
  do {                                                                                     \
    uint32_t p[(N) + 1], q[(N) + 1], c_;                                                   \
    /* Row 0: plain products, no carries (the pairs are disjoint). */                      \
    PSF_UNROLL for (int k_ = 0; k_ < (N) / 2; k_++) {                                      \
      PSF_OP_MUL_LO(p[2 * k_], a[2 * k_], b[0]);                                           \
      PSF_OP_MUL_HI(p[2 * k_ + 1], a[2 * k_], b[0]);                                       \
      PSF_OP_MUL_LO(q[2 * k_ + 1], a[2 * k_ + 1], b[0]);                                   \
      PSF_OP_MUL_HI(q[2 * k_ + 2], a[2 * k_ + 1], b[0]);                                   \
    }                                                                                      \
    p[N] = 0;                                                                              \
    q[0] = 0;                                                                              \
    PSF_UNROLL for (int x_ = 0; x_ < (KX); x_++) PSF_MONT_ROW_(N, p, q, C[x_], D[x_][0], 0u); \
    REDUCE(N, p, q, MOD, INV);                                                             \
    PSF_UNROLL for (int i_ = 1; i_ < (N); i_++) {                                          \
      uint32_t bi_ = b[i_];                                                                \
      c_ = p[0]; /* nonzero exactly when limb 0 of p + q, 0 mod W, carries */              \
      PSF_MONT_SHIFT_(N, p, q);                                                            \
      if (i_ & 1) {                                                                        \
        PSF_MONT_ROW_CIN_(N, q, p, a, bi_, PSF_CIN_NZ_, c_);                               \
        PSF_UNROLL for (int x_ = 0; x_ < (KX); x_++) PSF_MONT_ROW_(N, q, p, C[x_], D[x_][i_], 0u); \
        REDUCE(N, q, p, MOD, INV);                                                         \
      } else {                                                                             \
        PSF_MONT_ROW_CIN_(N, p, q, a, bi_, PSF_CIN_NZ_, c_);                               \
        PSF_UNROLL for (int x_ = 0; x_ < (KX); x_++) PSF_MONT_ROW_(N, p, q, C[x_], D[x_][i_], 0u); \
        REDUCE(N, p, q, MOD, INV);                                                         \
      }                                                                                    \
    }                                                                                      \
    /* p + q has limb 0 == 0 mod W; the result is limbs 1..N of the sum. */                \
    PSF_OP_ADD_CC(p[0], q[0]);                                                             \
    PSF_UNROLL for (int j_ = 1; j_ < (N); j_++) PSF_OP_ADDC_CC(p[j_], q[j_]);              \
    PSF_OP_ADDC(p[N], q[N]);                                                               \
    PSF_UNROLL for (int j_ = 0; j_ < (N); j_++) r[j_] = p[j_ + 1];                         \
  } while (0)

/* Montgomery reduction alone, for a 2N-limb T < MOD W^N: r = T/W^N mod MOD, < 2 MOD. T's
 * low half goes through N CIOS steps on the two accumulators (no product rows between
 * them): u = (T_lo + M MOD)/W^N <= MOD; then r = u + T_hi < 2 MOD, as T_hi < MOD. A step
 * is a product row of m times MOD (PSF_MONT_ROW_, which also adds the pending carry c of
 * the step before at limb 0 of the odd accumulator), with m counting c too. */
#define PSF_MONT_REDC_STEP_(N, p, q, c, MOD, INV, ROW)                                      \
  do {                                                                                     \
    uint32_t m_ = (p[0] + q[0] + (c)) * (uint32_t)(INV);                                   \
    ROW(N, p, q, MOD, m_, c);                                                              \
  } while (0)

/* PSF_MONT_ROW_ of m times a modulus whose two low limbs are 1 and W - 1 (BLS12-381's r):
 * those two products enter their chains as plain additions of their words, (m, 0) and
 * (-m, m - 1), or (0, 0) when m = 0, as in PSF_MONT_REDUCE_STEP_ with R1. */
#define PSF_MONT_ROW_R1_(N, X, Y, MOD, m, c)                                                 \
  do {                                                                                     \
    uint32_t l_ = 0u - (m), h_ = (m) - ((m) != 0u);                                        \
    PSF_OP_ADD_CC(X[0], m);                                                                \
    PSF_OP_ADDC_CC(X[1], 0u);                                                              \
    PSF_UNROLL for (int k_ = 1; k_ < (N) / 2; k_++) {                                      \
      PSF_OP_MADC_LO_CC(X[2 * k_], MOD[2 * k_], m);                                        \
      PSF_OP_MADC_HI_CC(X[2 * k_ + 1], MOD[2 * k_], m);                                    \
    }                                                                                      \
    PSF_OP_ADDC(X[N], 0u);                                                                 \
    PSF_OP_ADD_CC(Y[0], c);                                                                \
    PSF_OP_ADDC_CC(Y[1], l_);                                                              \
    PSF_OP_ADDC_CC(Y[2], h_);                                                              \
    PSF_UNROLL for (int k_ = 1; k_ < (N) / 2 - 1; k_++) {                                  \
      PSF_OP_MADC_LO_CC(Y[2 * k_ + 1], MOD[2 * k_ + 1], m);                                \
      PSF_OP_MADC_HI_CC(Y[2 * k_ + 2], MOD[2 * k_ + 1], m);                                \
    }                                                                                      \
    PSF_OP_MADC_LO_CC(Y[(N) - 1], MOD[(N) - 1], m);                                        \
    PSF_OP_MADC_HI(Y[N], MOD[(N) - 1], m);                                                 \
  } while (0)

#define PSF_MONT_REDC(N, r, T, MOD, INV) PSF_MONT_REDC_(N, r, T, MOD, INV, PSF_MONT_ROW_)
#define PSF_MONT_REDC_R1(N, r, T, MOD, INV) PSF_MONT_REDC_(N, r, T, MOD, INV, PSF_MONT_ROW_R1_)
#define PSF_MONT_REDC_(N, r, T, MOD, INV, ROW)                                               \
  do {                                                                                     \
    uint32_t p[(N) + 1], q[(N) + 1], c_ = 0;                                               \
    PSF_UNROLL for (int j_ = 0; j_ < (N); j_++) p[j_] = T[j_], q[j_] = 0;                  \
    p[N] = 0;                                                                              \
    q[N] = 0;                                                                              \
    PSF_UNROLL for (int i_ = 0; i_ < (N); i_++) {                                          \
      if (i_ > 0) {                                                                        \
        c_ = p[0] != 0; /* limb 0 of p + q is 0 mod W: its carry */                        \
        PSF_MONT_SHIFT_(N, p, q);                                                          \
      }                                                                                    \
      if (i_ & 1) PSF_MONT_REDC_STEP_(N, q, p, c_, MOD, INV, ROW);                         \
      else PSF_MONT_REDC_STEP_(N, p, q, c_, MOD, INV, ROW);                                \
    }                                                                                      \
    PSF_OP_ADD_CC(p[0], q[0]);                                                             \
    PSF_UNROLL for (int j_ = 1; j_ < (N); j_++) PSF_OP_ADDC_CC(p[j_], q[j_]);              \
    PSF_OP_ADDC(p[N], q[N]);                                                               \
    PSF_OP_ADD_CC(p[1], T[N]);                                                             \
    PSF_UNROLL for (int j_ = 1; j_ < (N) - 1; j_++) PSF_OP_ADDC_CC(p[j_ + 1], T[(N) + j_]); \
    PSF_OP_ADDC(p[N], T[2 * (N) - 1]);                                                     \
    PSF_UNROLL for (int j_ = 0; j_ < (N); j_++) r[j_] = p[j_ + 1];                         \
  } while (0)

/* One chain of row i of a square's off-diagonal products a_i a_j (j > i), each at limbs
 * s = i + j and s + 1, for s = s0, s0 + 2, ..., s1: the chains of odd s go to accumulator
 * o, those of even s to e, so no two products of a chain share a limb. Of row i's two
 * chains, the one ending at limb i + N (TOP) ends on a limb no earlier row reached, so its
 * last high word takes the carry and gives none (MADC_HI_Z); the other ends at i + N - 1,
 * the top of the row before, and passes its carry to the fresh limb i + N (ADDC_Z). */
#define PSF_SQR_CHAIN_(acc, a, i, s0, s1, TOP)                                              \
  do {                                                                                     \
    PSF_UNROLL for (int z_ = (s0); z_ <= (s1); z_ += 2) {                                  \
      if (z_ == (s0)) PSF_OP_MAD_LO_CC(acc[z_], a[i], a[z_ - (i)]);                        \
      else PSF_OP_MADC_LO_CC(acc[z_], a[i], a[z_ - (i)]);                                  \
      if (z_ == (s1) && (TOP)) PSF_OP_MADC_HI_Z(acc[z_ + 1], a[i], a[z_ - (i)]);           \
      else PSF_OP_MADC_HI_CC(acc[z_ + 1], a[i], a[z_ - (i)]);                              \
    }                                                                                      \
    if (!(TOP) && (s0) <= (s1)) PSF_OP_ADDC_Z(acc[(s1) + 2]);                               \
  } while (0)

/* r = a*a/W^N mod MOD (< 2 MOD; a < MOD): the N(N-1)/2 products a_i a_j (i < j) once, on
 * two accumulators by the parity of i + j; their sum doubled (shifts); the N squares
 * a_i^2 added on the disjoint pairs (2i, 2i+1) in one chain; then PSF_MONT_REDC. 78
 * products and the reduction's N^2 against the 2N^2 of PSF_MONT_BODY. Row 0 lands on
 * empty limbs, so its products are plain (no carries). */
#define PSF_MONT_SQR(N, r, a, MOD, INV)                                                      \
  do {                                                                                     \
    uint32_t e_[2 * (N)], o_[2 * (N)], t_[2 * (N)];                                        \
    PSF_SQR_POISON_(e_);                                                                   \
    PSF_SQR_POISON_(o_);                                                                   \
    PSF_UNROLL for (int z_ = 1; z_ < (N); z_++) {                                          \
      if (z_ & 1) {                                                                        \
        PSF_OP_MUL_LO(o_[z_], a[0], a[z_]);                                                \
        PSF_OP_MUL_HI(o_[z_ + 1], a[0], a[z_]);                                            \
      } else {                                                                             \
        PSF_OP_MUL_LO(e_[z_], a[0], a[z_]);                                                \
        PSF_OP_MUL_HI(e_[z_ + 1], a[0], a[z_]);                                            \
      }                                                                                    \
    }                                                                                      \
    e_[N] = 0;                                                                             \
    PSF_UNROLL for (int i_ = 1; i_ < (N) - 1; i_++) {                                      \
      /* the chain of parity i + 1 ends at the top, limb i + N */                          \
      if (i_ & 1) {                                                                        \
        PSF_SQR_CHAIN_(e_, a, i_, 2 * i_ + 2, i_ + (N) - 1, 1);                            \
        PSF_SQR_CHAIN_(o_, a, i_, 2 * i_ + 1, i_ + (N) - 2, 0);                            \
      } else {                                                                             \
        PSF_SQR_CHAIN_(o_, a, i_, 2 * i_ + 1, i_ + (N) - 1, 1);                            \
        PSF_SQR_CHAIN_(e_, a, i_, 2 * i_ + 2, i_ + (N) - 2, 0);                            \
      }                                                                                    \
    }                                                                                      \
    /* o + e: o holds limbs 1..2N-2, e limbs 2..2N-3; the sum may reach limb 2N-1 */       \
    PSF_OP_ADD_CC(o_[2], e_[2]);                                                           \
    PSF_UNROLL for (int j_ = 3; j_ < 2 * (N) - 2; j_++) PSF_OP_ADDC_CC(o_[j_], e_[j_]);    \
    PSF_OP_ADDC_CC(o_[2 * (N) - 2], 0u);                                                   \
    PSF_OP_ADDC_Z(o_[2 * (N) - 1]);                                                        \
    t_[0] = 0;                                                                             \
    t_[1] = o_[1] << 1;                                                                    \
    PSF_UNROLL for (int j_ = 2; j_ < 2 * (N); j_++) t_[j_] = (o_[j_] << 1) | (o_[j_ - 1] >> 31); \
    PSF_OP_MAD_LO_CC(t_[0], a[0], a[0]);                                                   \
    PSF_OP_MADC_HI_CC(t_[1], a[0], a[0]);                                                  \
    PSF_UNROLL for (int j_ = 1; j_ < (N) - 1; j_++) {                                      \
      PSF_OP_MADC_LO_CC(t_[2 * j_], a[j_], a[j_]);                                         \
      PSF_OP_MADC_HI_CC(t_[2 * j_ + 1], a[j_], a[j_]);                                     \
    }                                                                                      \
    PSF_OP_MADC_LO_CC(t_[2 * (N) - 2], a[(N) - 1], a[(N) - 1]);                            \
    PSF_OP_MADC_HI(t_[2 * (N) - 1], a[(N) - 1], a[(N) - 1]);                               \
    PSF_MONT_REDC(N, r, t_, MOD, INV);                                                     \
  } while (0)

#define PSF_MONT_NO_OPS_ ((const uint32_t *const *)0)
#define PSF_MONT_BODY(N, r, a, b, MOD, INV) \
  PSF_MONT_BODY_(N, r, a, b, MOD, INV, PSF_MONT_REDUCE_, 0, PSF_MONT_NO_OPS_, PSF_MONT_NO_OPS_)
#define PSF_MONT_BODY_R1(N, r, a, b, MOD, INV) \
  PSF_MONT_BODY_(N, r, a, b, MOD, INV, PSF_MONT_REDUCE_R1_, 0, PSF_MONT_NO_OPS_, PSF_MONT_NO_OPS_)
/* r = (a b + C[0] D[0] + ... + C[KX-1] D[KX-1]) / W^N mod MOD, < 2 MOD, with one reduction
 * for all the products: each row adds the KX further products' rows to the accumulators
 * before its reduction step, so a sum of K = KX + 1 products costs K product rows and one
 * reduction row a limb instead of K of each (a G1 point's y in an addition or doubling,
 * R (Q - X3) - Y1 PPP, is such a sum; an Fp2 product is two). C and D are arrays of KX
 * pointers to N-limb operands. Bounds: every operand < MOD and (K + 1) MOD W < (W - 1) W^N.
 * Then p + q + c < (K + 1) MOD W / (W - 1) < W^N after each shift (a row adds less than
 * K MOD W of products and MOD W of reduction, then divides by W), so each accumulator
 * keeps N + 1 limbs within a row; and the result is below K MOD^2 / W^N + MOD < 2 MOD.
 * For BLS12-381's p (about 2^380.7, N = 12) K may be up to 4: 5p is about 2^383.02. */
#define PSF_MONT_SUM(N, r, a, b, KX, C, D, MOD, INV) \
  PSF_MONT_BODY_(N, r, a, b, MOD, INV, PSF_MONT_REDUCE_, KX, C, D)


/* t[0..2M-1] = a[0..M-1] b[0..M-1] (M even), the plain product: row i's products a_j b_i
 * land on limbs (i + j, i + j + 1), on accumulator e when i + j is even and on o when it
 * is odd, so each row is two carry chains whose products never share a limb (one wide
 * multiplication each on sm_90). Of row i's two chains, the one of the even j ends at
 * limb i + M - 1 and puts its carry on limb i + M; the one of the odd j ends at limb
 * i + M. No earlier row reached limb i + M of either accumulator, so both write it
 * without reading it (ADDC_Z, MADC_HI_Z) and no carry is lost; every other limb a chain
 * adds to was written by an earlier row, except limb M of e in row 1 (MADC_LO_CC_Z), so
 * nothing starts from zeroed registers (M >= 4). Then t = e + o. */
#define PSF_MUL_ROW_(M, X, Y, a, bi, i)                                                      \
  do {                                                                                     \
    PSF_UNROLL for (int j_ = 0; j_ < (M); j_ += 2) {                                       \
      if (j_ == 0) PSF_OP_MAD_LO_CC(X[(i) + j_], a[j_], bi);                               \
      else PSF_OP_MADC_LO_CC(X[(i) + j_], a[j_], bi);                                      \
      PSF_OP_MADC_HI_CC(X[(i) + j_ + 1], a[j_], bi);                                       \
    }                                                                                      \
    PSF_OP_ADDC_Z(X[(i) + (M)]);                                                           \
    PSF_UNROLL for (int j_ = 1; j_ < (M); j_ += 2) {                                       \
      if (j_ == 1) PSF_OP_MAD_LO_CC(Y[(i) + j_], a[j_], bi);                               \
      else if (j_ == (M) - 1 && (i) == 1) PSF_OP_MADC_LO_CC_Z(Y[(i) + j_], a[j_], bi);     \
      else PSF_OP_MADC_LO_CC(Y[(i) + j_], a[j_], bi);                                      \
      if (j_ == (M) - 1) PSF_OP_MADC_HI_Z(Y[(i) + j_ + 1], a[j_], bi);                     \
      else PSF_OP_MADC_HI_CC(Y[(i) + j_ + 1], a[j_], bi);                                  \
    }                                                                                      \
  } while (0)

#define PSF_MUL_FULL(M, t, a, b)                                                             \
  do {                                                                                     \
    uint32_t e_[2 * (M)], o_[2 * (M)];                                                     \
    PSF_SQR_POISON_(e_);                                                                   \
    PSF_SQR_POISON_(o_);                                                                   \
    PSF_UNROLL for (int j_ = 0; j_ < (M); j_ += 2) { /* row 0: disjoint pairs, no carries */ \
      PSF_OP_MUL_LO(e_[j_], a[j_], b[0]);                                                  \
      PSF_OP_MUL_HI(e_[j_ + 1], a[j_], b[0]);                                              \
      PSF_OP_MUL_LO(o_[j_ + 1], a[j_ + 1], b[0]);                                          \
      PSF_OP_MUL_HI(o_[j_ + 2], a[j_ + 1], b[0]);                                          \
    }                                                                                      \
    PSF_UNROLL for (int i_ = 1; i_ < (M); i_++) {                                          \
      if (i_ & 1) PSF_MUL_ROW_(M, o_, e_, a, b[i_], i_);                                   \
      else PSF_MUL_ROW_(M, e_, o_, a, b[i_], i_);                                          \
    }                                                                                      \
    t[0] = e_[0];                                                                          \
    PSF_OP_ADD2_CC(t[1], e_[1], o_[1]);                                                    \
    PSF_UNROLL for (int z_ = 2; z_ < 2 * (M) - 1; z_++) PSF_OP_ADDC2_CC(t[z_], e_[z_], o_[z_]); \
    PSF_OP_ADDC2(t[2 * (M) - 1], e_[2 * (M) - 1], o_[2 * (M) - 1]);                        \
  } while (0)

/* r = a b / W^N mod MOD (< 2 MOD) for BLS12-381's r (MOD's limbs 0 and 1 are 1 and W - 1;
 * a, b < MOD < W^N / 2), the product by Karatsuba's split and the reduction apart: with
 * M = N/2 and a = a1 W^M + a0, b likewise, z0 = a0 b0 and z2 = a1 b1 go to the low and
 * high halves of T, z1 = (a0 + a1)(b0 + b1) - z0 - z2 = a0 b1 + a1 b0 (< 2 W^N: N + 1
 * limbs) is added at limb M, and PSF_MONT_REDC_R1 reduces T. The sums a0 + a1 and b0 + b1
 * have M limbs and a carry each (ca, cb): their product is the M x M one plus ca (b0 +
 * b1) and cb (a0 + a1) at limb M, plus ca cb at limb N. 3 (N/2)^2 wide multiplications
 * for the product against N^2, and more additions (docs/performance.md, "Where the NTT's
 * last 8% would come from"). */
#define PSF_MONT_KARA_R1(N, r, a, b, MOD, INV)                                               \
  do {                                                                                     \
    uint32_t T_[2 * (N)], zm_[(N) + 1], sa_[(N) / 2], sb_[(N) / 2], ca_, cb_;               \
    const uint32_t *a1_ = (a) + (N) / 2, *b1_ = (b) + (N) / 2;                             \
    uint32_t *T2_ = T_ + (N);                                                              \
    PSF_MUL_FULL((N) / 2, T_, a, b);                                                       \
    PSF_MUL_FULL((N) / 2, T2_, a1_, b1_);                                                  \
    PSF_OP_ADD2_CC(sa_[0], a[0], a1_[0]);                                                  \
    PSF_UNROLL for (int k_ = 1; k_ < (N) / 2; k_++) PSF_OP_ADDC2_CC(sa_[k_], a[k_], a1_[k_]); \
    PSF_OP_ADDC_Z(ca_);                                                                    \
    PSF_OP_ADD2_CC(sb_[0], b[0], b1_[0]);                                                  \
    PSF_UNROLL for (int k_ = 1; k_ < (N) / 2; k_++) PSF_OP_ADDC2_CC(sb_[k_], b[k_], b1_[k_]); \
    PSF_OP_ADDC_Z(cb_);                                                                    \
    PSF_MUL_FULL((N) / 2, zm_, sa_, sb_);                                                   \
    zm_[N] = 0;                                                                             \
    {                                                                                      \
      uint32_t ma_ = 0u - ca_, mb_ = 0u - cb_;                                             \
      PSF_OP_ADD_CC(zm_[(N) / 2], sb_[0] & ma_);                                            \
      PSF_UNROLL for (int k_ = 1; k_ < (N) / 2; k_++) PSF_OP_ADDC_CC(zm_[(N) / 2 + k_], sb_[k_] & ma_); \
      PSF_OP_ADDC(zm_[N], 0u);                                                              \
      PSF_OP_ADD_CC(zm_[(N) / 2], sa_[0] & mb_);                                            \
      PSF_UNROLL for (int k_ = 1; k_ < (N) / 2; k_++) PSF_OP_ADDC_CC(zm_[(N) / 2 + k_], sa_[k_] & mb_); \
      PSF_OP_ADDC(zm_[N], ca_ & cb_);                                                       \
    }                                                                                      \
    PSF_OP_SUB_CC(zm_[0], T_[0]);                                                           \
    PSF_UNROLL for (int k_ = 1; k_ < (N); k_++) PSF_OP_SUBC_CC(zm_[k_], T_[k_]);            \
    PSF_OP_SUBC(zm_[N], 0u);                                                                \
    PSF_OP_SUB_CC(zm_[0], T2_[0]);                                                          \
    PSF_UNROLL for (int k_ = 1; k_ < (N); k_++) PSF_OP_SUBC_CC(zm_[k_], T2_[k_]);           \
    PSF_OP_SUBC(zm_[N], 0u);                                                                \
    PSF_OP_ADD_CC(T_[(N) / 2], zm_[0]);                                                     \
    PSF_UNROLL for (int k_ = 1; k_ <= (N); k_++) PSF_OP_ADDC_CC(T_[(N) / 2 + k_], zm_[k_]); \
    PSF_UNROLL for (int k_ = (N) / 2 + (N) + 1; k_ < 2 * (N) - 1; k_++) PSF_OP_ADDC_CC(T_[k_], 0u); \
    PSF_OP_ADDC(T_[2 * (N) - 1], 0u);                                                      \
    PSF_MONT_REDC_R1(N, r, T_, MOD, INV);                                                  \
  } while (0)

/* ---- Lazy reduction: values in [0, 2m) (the NTT's passes, PSC_NTT_REDUCE=lazy) ----
 * For a modulus with one spare bit and no more (W^N / 4 < m < W^N / 2, as BLS12-381's r):
 * - The product PSF_MONT_BODY(_R1) of a < m, the operand added whole every row, and
 *   b < 2m, read a limb a row, is < 2m as it stands. The row bound above holds for any
 *   b (each row adds a b_i < W times a), and the result is (a b + u m) / W^N <
 *   (2m^2 + m W^N) / W^N = m (1 + 2m / W^N) < 2m. So it needs no final subtraction.
 * - PSF_ADD_LAZY: a + b for a, b < 2m, brought below 2m by one conditional subtraction
 *   of 2m (M2). The sum may reach 4m > W^N, so its carry out takes part: the top word
 *   c - borrow is 0 when a + b >= 2m (take the difference) and all ones when below.
 * - PSF_SUB_LAZY: a - b for a, b < 2m, plus 2m when it borrowed.
 * The caller subtracts m once where a value must be canonical (a transform's output).
 * tests/test_montmul.c runs these sequences on the CPU, the NTT's butterflies with them. */
#define PSF_ADD_LAZY(N, r, a, b, M2)                                                       \
  do {                                                                                     \
    uint32_t lt_[N], ls_[N], lc_, lb_;                                                     \
    PSF_OP_ADD2_CC(lt_[0], a[0], b[0]);                                                    \
    PSF_UNROLL for (int j_ = 1; j_ < (N); j_++) PSF_OP_ADDC2_CC(lt_[j_], a[j_], b[j_]);    \
    PSF_OP_ADDC_Z(lc_);                                                                    \
    PSF_OP_SUB2_CC(ls_[0], lt_[0], M2[0]);                                                 \
    PSF_UNROLL for (int j_ = 1; j_ < (N); j_++) PSF_OP_SUBC2_CC(ls_[j_], lt_[j_], M2[j_]); \
    PSF_OP_SUBC2_W(lb_, lc_, 0u);                                                          \
    PSF_UNROLL for (int j_ = 0; j_ < (N); j_++) r[j_] = lb_ ? lt_[j_] : ls_[j_];           \
  } while (0)
#define PSF_SUB_LAZY(N, r, a, b, M2)                                                       \
  do {                                                                                     \
    uint32_t lt_[N], ls_[N], lb_;                                                          \
    PSF_OP_SUB2_CC(lt_[0], a[0], b[0]);                                                    \
    PSF_UNROLL for (int j_ = 1; j_ < (N); j_++) PSF_OP_SUBC2_CC(lt_[j_], a[j_], b[j_]);    \
    PSF_OP_SUBC2_W(lb_, 0u, 0u);                                                           \
    PSF_OP_ADD2_CC(ls_[0], lt_[0], M2[0]);                                                 \
    PSF_UNROLL for (int j_ = 1; j_ < (N); j_++) PSF_OP_ADDC2_CC(ls_[j_], lt_[j_], M2[j_]); \
    PSF_UNROLL for (int j_ = 0; j_ < (N); j_++) r[j_] = lb_ ? ls_[j_] : lt_[j_];           \
  } while (0)

#endif
