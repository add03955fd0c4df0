/* Plots as inline SVG text, for the HTML report (`provesim report`): a plot area with two
 * axes, each numeric (ticks at "nice" numbers: 1, 2 or 5 times a power of ten) or
 * categorical (one labelled slot per category), and marks drawn in data coordinates:
 * rectangles, lines, markers, error bars, text. Every axis carries its label with the
 * unit; the output holds no script and no external reference, so a page of these plots
 * reads offline. Text is escaped for XML and HTML with svg_escape. */
#ifndef PROVESIM_SVG_H
#define PROVESIM_SVG_H

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One axis. Numeric: lo..hi with ticks every step from the first multiple of step at or
 * above lo (svg_axis_num chooses them). Categorical (ncat > 0): category i sits at i, the
 * axis runs from -0.5 to ncat - 0.5; cats are borrowed until svg_end. */
typedef struct svg_axis {
  double lo, hi, step;
  int ncat;
  const char *const *cats;
  const char *label; /* the quantity and its unit, "GPU utilization (%)"; borrowed */
} svg_axis;

/* A numeric axis over [lo, hi] (lo < hi, or equal: widened) extended to nice tick
 * values, with about nticks ticks. */
svg_axis svg_axis_num(double lo, double hi, int nticks, const char *label);
/* A categorical axis of n labels (borrowed). */
svg_axis svg_axis_cat(const char *const *cats, int n, const char *label);

/* A plot being written into b: w x h pixels, margins around the plot area. */
typedef struct svg_plot {
  ps_buf *b;
  int w, h, ml, mr, mt, mb;
  svg_axis x, y;
} svg_plot;

/* Starts an <svg> of w x h pixels with an accessible title (escaped); the left margin
 * grows to fit the longest y tick label. */
void svg_begin(svg_plot *p, ps_buf *b, int w, int h, const svg_axis *x, const svg_axis *y, const char *title);
/* Draws the grid, the two axes with their ticks and tick labels, and the axis labels
 * (<g class="x-axis">, <g class="y-axis">, <text class="axis-label x-label|y-label">). */
void svg_axes(svg_plot *p);
void svg_end(svg_plot *p);

/* Pixel positions of data coordinates (values outside the axis are clamped to it). */
double svg_px(const svg_plot *p, double x);
double svg_py(const svg_plot *p, double y);

/* A rectangle between data corners (x0, y0) and (x1, y1); tip (may be NULL) becomes its
 * tooltip. */
void svg_rect(svg_plot *p, double x0, double y0, double x1, double y1, const char *fill, const char *tip);
/* A polyline through n points (non-finite points break it); dash NULL for a solid one. */
void svg_line(svg_plot *p, const double *xs, const double *ys, int n, const char *stroke, const char *dash);
/* A circle of radius r pixels at (x, y). */
void svg_marker(svg_plot *p, double x, double y, double r, const char *fill, const char *tip);
/* Error bars: vertical at x from y0 to y1, horizontal at y from x0 to x1. */
void svg_ybar(svg_plot *p, double x, double y0, double y1, const char *stroke);
void svg_xbar(svg_plot *p, double y, double x0, double x1, const char *stroke);
/* Text at data coordinates, anchor "start", "middle" or "end"; escaped. */
void svg_text(svg_plot *p, double x, double y, const char *anchor, const char *text);
/* A legend of n coloured swatches in a row above the plot area. */
void svg_legend(svg_plot *p, const char *const *labels, const char *const *colors, int n);

/* The i-th colour of the series palette (any i >= 0). */
const char *svg_color(int i);

/* Appends s with &, <, >, " and ' escaped (valid in XML and HTML text and attributes). */
void svg_escape(ps_buf *b, const char *s);

#ifdef __cplusplus
}
#endif

#endif
