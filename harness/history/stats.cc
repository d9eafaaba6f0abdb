#include "harness/history/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace sparsebench {
namespace {

// The continued fraction of the incomplete beta function (modified Lentz).
double BetaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEpsilon = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::abs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    for (const bool even : {true, false}) {
      const double num = even ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                              : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + num * d;
      d = 1 / (std::abs(d) < kTiny ? kTiny : d);
      c = 1 + num / c;
      if (std::abs(c) < kTiny) c = kTiny;
      h *= d * c;
      if (!even && std::abs(d * c - 1) < kEpsilon) return h;
    }
  }
  return h;
}

// The regularized incomplete beta function I_x(a, b).
double IncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaFraction(a, b, x) / a;
  return 1 - front * BetaFraction(b, a, 1 - x) / b;
}

double Variance(std::span<const double> x) {
  const double s = StdDev(x);
  return s * s;
}

}  // namespace

double Mean(std::span<const double> x) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double Percentile(std::span<const double> x, double q) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v(x.begin(), x.end());
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double Median(std::span<const double> x) { return Percentile(x, 0.5); }

double StdDev(std::span<const double> x) {
  if (x.size() < 2) return 0;
  const double m = Mean(x);
  double sum = 0;
  for (double v : x) sum += (v - m) * (v - m);
  return std::sqrt(sum / static_cast<double>(x.size() - 1));
}

double StudentTwoSidedP(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return 1;
  if (std::isinf(t)) return 0;
  return IncompleteBeta(df / 2, 0.5, df / (df + t * t));
}

double WelchP(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return 1;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double va = Variance(a) / na, vb = Variance(b) / nb, diff = Mean(a) - Mean(b);
  if (va + vb == 0) return diff == 0 ? 1 : 0;
  const double df_den =
      (a.size() > 1 ? va * va / (na - 1) : 0) + (b.size() > 1 ? vb * vb / (nb - 1) : 0);
  const double df = df_den > 0 ? (va + vb) * (va + vb) / df_den : 1;
  return StudentTwoSidedP(diff / std::sqrt(va + vb), df);
}

double StudentP(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty() || a.size() + b.size() < 3) return 1;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double pooled = ((na - 1) * Variance(a) + (nb - 1) * Variance(b)) / (na + nb - 2);
  const double diff = Mean(a) - Mean(b);
  if (pooled == 0) return diff == 0 ? 1 : 0;
  return StudentTwoSidedP(diff / std::sqrt(pooled * (1 / na + 1 / nb)), na + nb - 2);
}

LinearFit FitLine(std::span<const double> y) {
  LinearFit fit;
  const size_t n = y.size();
  if (n == 0) return fit;
  const double mean_x = static_cast<double>(n - 1) / 2, mean_y = Mean(y);
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (static_cast<double>(i) - mean_x) * (static_cast<double>(i) - mean_x);
    sxy += (static_cast<double>(i) - mean_x) * (y[i] - mean_y);
  }
  fit.slope = sxx > 0 ? sxy / sxx : 0;
  fit.first = mean_y - fit.slope * mean_x;
  fit.last = mean_y + fit.slope * mean_x;
  if (n < 3) return fit;
  double residual = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = y[i] - (fit.first + fit.slope * static_cast<double>(i));
    residual += e * e;
  }
  const double se = std::sqrt(residual / static_cast<double>(n - 2) / sxx);
  if (se == 0) {
    fit.p = fit.slope == 0 ? 1 : 0;
  } else {
    fit.p = StudentTwoSidedP(fit.slope / se, static_cast<double>(n - 2));
  }
  return fit;
}

}  // namespace sparsebench
