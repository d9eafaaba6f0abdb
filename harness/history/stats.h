#pragma once

#include <span>

namespace sparsebench {

double Mean(std::span<const double> x);
double Median(std::span<const double> x);  // NaN when empty
double StdDev(std::span<const double> x);  // sample standard deviation; 0 below 2 values
double Percentile(std::span<const double> x, double q);  // 0 <= q <= 1, interpolated

// Two-sided p-value of Student's t with `df` degrees of freedom.
double StudentTwoSidedP(double t, double df);

// Welch's t-test of equal means: its two-sided p-value. Two samples without spread are
// different (p = 0) when their means differ, the same (p = 1) when not.
double WelchP(std::span<const double> a, std::span<const double> b);

// Student's t-test of equal means with a pooled variance: its two-sided p-value (robust where
// one side has few points and, by chance, little spread). Same rule without spread as WelchP.
double StudentP(std::span<const double> a, std::span<const double> b);

// The least-squares line through (i, y[i]): its slope per step, the slope's two-sided p-value
// (t-test of zero slope) and the fitted value at the first and last points.
struct LinearFit {
  double slope = 0, p = 1, first = 0, last = 0;
};
LinearFit FitLine(std::span<const double> y);

}  // namespace sparsebench
