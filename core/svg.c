/* Implementation of svg.h. Tick values follow Heckbert's "nice numbers" (Graphics Gems,
 * 1990): a step of 1, 2 or 5 times a power of ten, the range widened to whole steps.
 * Coordinates are written with one decimal, so the same plot gives the same bytes. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SVG_CHAR_W 6.6 /* the width of a character of the 12 px sans-serif labels, about */

/* The nice number near x: rounded (to the nearest of 1, 2, 5, 10 times a power of ten)
 * or not below x. */
static double nice(double x, int round) {
  double ex = floor(log10(x)), f = x / pow(10, ex), nf;
  if (round) nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  else nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nf * pow(10, ex);
}

svg_axis svg_axis_num(double lo, double hi, int nticks, const char *label) {
  svg_axis a = {0};
  a.label = label;
  if (!isfinite(lo) || !isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) {
    double t = lo;
    lo = hi, hi = t;
  }
  if (hi - lo < 1e-12 * fmax(1, fabs(hi))) {
    double d = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
    lo -= d, hi += d;
  }
  if (nticks < 2) nticks = 2;
  double step = nice(nice(hi - lo, 0) / (nticks - 1), 1);
  a.step = step;
  a.lo = floor(lo / step + 1e-9) * step;
  a.hi = ceil(hi / step - 1e-9) * step;
  return a;
}

svg_axis svg_axis_cat(const char *const *cats, int n, const char *label) {
  svg_axis a = {0};
  a.label = label;
  a.cats = cats;
  a.ncat = n;
  a.lo = -0.5;
  a.hi = n - 0.5;
  return a;
}

/* The first tick: the first multiple of the step at or above the axis's start (which a
 * caller may have moved off the nice value). */
static double first_tick(const svg_axis *a) { return ceil(a->lo / a->step - 1e-9) * a->step; }

/* A tick label: as many decimals as the step needs. */
static void tick_label(const svg_axis *a, double v, char *buf, size_t n) {
  int dec = a->step > 0 ? (int)-floor(log10(a->step) + 1e-9) : 0;
  if (dec < 0) dec = 0;
  if (dec > 6) dec = 6;
  if (fabs(v) < a->step * 1e-6) v = 0;
  if (fabs(v) >= 1e7) snprintf(buf, n, "%.3g", v);
  else snprintf(buf, n, "%.*f", dec, v);
}

/* The widest label of the y axis, in characters. */
static int y_label_chars(const svg_axis *a) {
  int w = 1;
  char t[64];
  if (a->ncat > 0) {
    for (int i = 0; i < a->ncat; i++)
      if ((int)strlen(a->cats[i]) > w) w = (int)strlen(a->cats[i]);
    return w;
  }
  for (double v = first_tick(a); v <= a->hi + a->step * 1e-6; v += a->step) {
    tick_label(a, v, t, sizeof t);
    if ((int)strlen(t) > w) w = (int)strlen(t);
  }
  return w;
}

/* 1 when the x axis's category labels do not fit their slots and are written slanted. */
static int x_slanted(const svg_plot *p) {
  if (p->x.ncat <= 0) return 0;
  double slot = (p->w - p->ml - p->mr) / (double)p->x.ncat;
  for (int i = 0; i < p->x.ncat; i++)
    if (strlen(p->x.cats[i]) * SVG_CHAR_W > slot - 4) return 1;
  return 0;
}

void svg_begin(svg_plot *p, ps_buf *b, int w, int h, const svg_axis *x, const svg_axis *y, const char *title) {
  memset(p, 0, sizeof *p);
  p->b = b;
  p->w = w;
  p->h = h;
  p->x = *x;
  p->y = *y;
  int yc = y_label_chars(y);
  if (yc > 40) yc = 40;
  p->ml = (int)(yc * SVG_CHAR_W) + (y->ncat > 0 ? 16 : 40);
  p->mr = 24;
  p->mt = y->ncat > 0 ? 46 : 34; /* a categorical y axis's label sits above the plot, under the legend */
  p->mb = 52;
  if (x_slanted(p)) {
    int xc = 1;
    for (int i = 0; i < p->x.ncat; i++)
      if ((int)strlen(p->x.cats[i]) > xc) xc = (int)strlen(p->x.cats[i]);
    if (xc > 40) xc = 40;
    p->mb += (int)(xc * SVG_CHAR_W * 0.6);
  }
  ps_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" role=\"img\"><title>", w, h, w, h);
  svg_escape(b, title);
  ps_buf_printf(b, "</title>\n");
}

double svg_px(const svg_plot *p, double x) {
  double f = (x - p->x.lo) / (p->x.hi - p->x.lo);
  if (!(f >= 0)) f = 0;
  if (f > 1) f = 1;
  return p->ml + f * (p->w - p->ml - p->mr);
}

double svg_py(const svg_plot *p, double y) {
  double f = (y - p->y.lo) / (p->y.hi - p->y.lo);
  if (!(f >= 0)) f = 0;
  if (f > 1) f = 1;
  return p->h - p->mb - f * (p->h - p->mt - p->mb);
}

void svg_axes(svg_plot *p) {
  ps_buf *b = p->b;
  double L = p->ml, R = p->w - p->mr, T = p->mt, B = p->h - p->mb;
  char t[64];
  /* x axis: ticks, grid lines, tick labels, the label. */
  ps_buf_printf(b, "<g class=\"x-axis\">");
  ps_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", L, B, R, B);
  int slant = x_slanted(p);
  if (p->x.ncat > 0) {
    for (int i = 0; i < p->x.ncat; i++) {
      double x = svg_px(p, i);
      ps_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>", x, B, x, B + 5);
      if (slant)
        ps_buf_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                         "transform=\"rotate(-35 %.1f %.1f)\">", x, B + 16, x, B + 16);
      else
        ps_buf_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, B + 18);
      svg_escape(b, p->x.cats[i]);
      ps_buf_printf(b, "</text>\n");
    }
  } else {
    for (double v = first_tick(&p->x); v <= p->x.hi + p->x.step * 1e-6; v += p->x.step) {
      double x = svg_px(p, v);
      tick_label(&p->x, v, t, sizeof t);
      ps_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
                       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    x, T, x, B, x, B, x, B + 5, x, B + 18, t);
    }
  }
  ps_buf_printf(b, "<text class=\"axis-label x-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", (L + R) / 2,
                p->h - 8);
  svg_escape(b, p->x.label);
  ps_buf_printf(b, "</text></g>\n");
  /* y axis. */
  ps_buf_printf(b, "<g class=\"y-axis\">");
  ps_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", L, T, L, B);
  if (p->y.ncat > 0) {
    for (int i = 0; i < p->y.ncat; i++) {
      double y = svg_py(p, i);
      ps_buf_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", L - 6, y + 4);
      svg_escape(b, p->y.cats[i]);
      ps_buf_printf(b, "</text>\n");
    }
  } else {
    for (double v = first_tick(&p->y); v <= p->y.hi + p->y.step * 1e-6; v += p->y.step) {
      double y = svg_py(p, v);
      tick_label(&p->y, v, t, sizeof t);
      ps_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
                       "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    L, y, R, y, L - 5, y, L, y, L - 8, y + 4, t);
    }
  }
  /* The y label runs up the left edge; a categorical axis's labels already say what the
   * rows are, so its label sits above them, at the top left. */
  if (p->y.ncat > 0)
    ps_buf_printf(b, "<text class=\"axis-label y-label\" x=\"4\" y=\"%d\">", p->mt - 8);
  else
    ps_buf_printf(b, "<text class=\"axis-label y-label\" x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 14 %.1f)\">", (T + B) / 2, (T + B) / 2);
  svg_escape(b, p->y.label);
  ps_buf_printf(b, "</text></g>\n");
}

void svg_end(svg_plot *p) { ps_buf_printf(p->b, "</svg>\n"); }

static void tip(ps_buf *b, const char *t) {
  if (!t) return;
  ps_buf_printf(b, "<title>");
  svg_escape(b, t);
  ps_buf_printf(b, "</title>");
}

void svg_rect(svg_plot *p, double x0, double y0, double x1, double y1, const char *fill, const char *t) {
  double a = svg_px(p, x0), c = svg_px(p, x1), d = svg_py(p, y0), e = svg_py(p, y1);
  ps_buf_printf(p->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", fmin(a, c),
                fmin(d, e), fabs(c - a), fabs(e - d), fill);
  tip(p->b, t);
  ps_buf_printf(p->b, "</rect>\n");
}

void svg_line(svg_plot *p, const double *xs, const double *ys, int n, const char *stroke, const char *dash) {
  int open = 0;
  for (int i = 0; i < n; i++) {
    if (!isfinite(xs[i]) || !isfinite(ys[i])) {
      if (open) ps_buf_printf(p->b, "\"/>\n");
      open = 0;
      continue;
    }
    if (!open) {
      ps_buf_printf(p->b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"", stroke,
                    dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
      open = 1;
    }
    ps_buf_printf(p->b, "%.1f,%.1f ", svg_px(p, xs[i]), svg_py(p, ys[i]));
  }
  if (open) ps_buf_printf(p->b, "\"/>\n");
}

void svg_marker(svg_plot *p, double x, double y, double r, const char *fill, const char *t) {
  if (!isfinite(x) || !isfinite(y)) return;
  ps_buf_printf(p->b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"#222\" stroke-width=\"0.5\">",
                svg_px(p, x), svg_py(p, y), r, fill);
  tip(p->b, t);
  ps_buf_printf(p->b, "</circle>\n");
}

void svg_ybar(svg_plot *p, double x, double y0, double y1, const char *stroke) {
  if (!isfinite(x) || !isfinite(y0) || !isfinite(y1)) return;
  double px = svg_px(p, x), a = svg_py(p, y0), c = svg_py(p, y1);
  ps_buf_printf(p->b, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\" fill=\"none\"/>\n",
                px, a, c, px - 4, a, px + 4, px - 4, c, px + 4, stroke);
}

void svg_xbar(svg_plot *p, double y, double x0, double x1, const char *stroke) {
  if (!isfinite(y) || !isfinite(x0) || !isfinite(x1)) return;
  double py = svg_py(p, y), a = svg_px(p, x0), c = svg_px(p, x1);
  ps_buf_printf(p->b, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"%s\" fill=\"none\"/>\n",
                a, py, c, a, py - 4, py + 4, c, py - 4, py + 4, stroke);
}

void svg_text(svg_plot *p, double x, double y, const char *anchor, const char *text) {
  ps_buf_printf(p->b, "<text class=\"mark\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", svg_px(p, x), svg_py(p, y) + 4,
                anchor);
  svg_escape(p->b, text);
  ps_buf_printf(p->b, "</text>\n");
}

void svg_legend(svg_plot *p, const char *const *labels, const char *const *colors, int n) {
  double x = p->ml;
  ps_buf_printf(p->b, "<g class=\"legend\">");
  for (int i = 0; i < n; i++) {
    ps_buf_printf(p->b, "<rect x=\"%.1f\" y=\"4\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                        "<text class=\"tick\" x=\"%.1f\" y=\"14\">", x, colors[i], x + 16);
    svg_escape(p->b, labels[i]);
    ps_buf_printf(p->b, "</text>");
    x += 28 + strlen(labels[i]) * SVG_CHAR_W;
  }
  ps_buf_printf(p->b, "</g>\n");
}

const char *svg_color(int i) {
  /* Distinguishable under the common colour-vision deficiencies (Okabe and Ito, 2008). */
  static const char *const pal[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                    "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  return pal[(i < 0 ? 0 : i) % 8];
}

void svg_escape(ps_buf *b, const char *s) {
  if (!s) return;
  for (const char *q = s; *q; q++) {
    switch (*q) {
    case '&': ps_buf_append(b, "&amp;", 5); break;
    case '<': ps_buf_append(b, "&lt;", 4); break;
    case '>': ps_buf_append(b, "&gt;", 4); break;
    case '"': ps_buf_append(b, "&quot;", 6); break;
    case '\'': ps_buf_append(b, "&#39;", 5); break;
    default:
      if ((unsigned char)*q < 0x20 && *q != '\n' && *q != '\t') ps_buf_append(b, " ", 1);
      else ps_buf_append(b, q, 1);
    }
  }
}
