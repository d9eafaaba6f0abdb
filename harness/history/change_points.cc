#include "harness/history/change_points.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "harness/history/stats.h"

namespace sparsebench {
namespace {

// The split of x[begin, end) that maximises the energy statistic Q (E-divisive): the distance
// between the two sides less the spread within each, weighted by their sizes.
std::optional<size_t> BestSplit(std::span<const double> x, size_t begin, size_t end,
                                size_t min_segment) {
  if (end - begin < 2 * min_segment) return std::nullopt;
  double cross = 0, within_left = 0, within_right = 0;
  for (size_t i = begin; i < end; ++i) {
    for (size_t j = i + 1; j < end; ++j) within_right += std::abs(x[i] - x[j]);
  }
  std::optional<size_t> best;
  double best_q = -1;
  for (size_t t = begin; t + min_segment < end + 1; ++t) {
    const size_t left = t - begin, right = end - t;
    if (left >= min_segment && right >= min_segment) {
      const double m = static_cast<double>(left), k = static_cast<double>(right);
      const double q = m * k / (m + k) *
                       (2 * cross / (m * k) - within_left / (m * (m - 1) / 2) -
                        within_right / (k * (k - 1) / 2));
      if (q > best_q) best_q = q, best = t;
    }
    double to_left = 0, to_right = 0;  // x[t] moves from the right side to the left
    for (size_t i = begin; i < t; ++i) to_left += std::abs(x[t] - x[i]);
    for (size_t j = t + 1; j < end; ++j) to_right += std::abs(x[t] - x[j]);
    within_left += to_left;
    within_right -= to_right;
    cross += to_right - to_left;
  }
  return best;
}

ChangePoint Test(std::span<const double> x, size_t begin, size_t at, size_t end) {
  const std::span<const double> before = x.subspan(begin, at - begin),
                                after = x.subspan(at, end - at);
  return {at, Mean(before), Mean(after), StudentP(before, after)};
}

bool Passes(const ChangePoint& c, const ChangePointOptions& o) {
  return c.p < o.alpha && std::abs(c.change()) >= o.min_magnitude;
}

}  // namespace

std::vector<Segment> Segments(size_t n, const std::vector<ChangePoint>& points) {
  std::vector<Segment> segments;
  size_t begin = 0;
  for (const ChangePoint& c : points) segments.push_back({begin, c.index}), begin = c.index;
  segments.push_back({begin, n});
  return segments;
}

std::vector<ChangePoint> FindChangePoints(std::span<const double> x,
                                          const ChangePointOptions& options) {
  const size_t min_segment = std::max<size_t>(options.min_segment, 2);
  std::vector<ChangePoint> points;
  while (true) {  // split
    std::optional<ChangePoint> best;
    double best_magnitude = 0;
    for (const Segment& s : Segments(x.size(), points)) {
      const std::optional<size_t> at = BestSplit(x, s.begin, s.end, min_segment);
      if (!at) continue;
      const ChangePoint c = Test(x, s.begin, *at, s.end);
      if (Passes(c, options) &&
          (!best || c.p < best->p || (c.p == best->p && std::abs(c.change()) > best_magnitude))) {
        best = c, best_magnitude = std::abs(c.change());
      }
    }
    if (!best) break;
    points.insert(std::upper_bound(points.begin(), points.end(), best->index,
                                   [](size_t i, const ChangePoint& c) { return i < c.index; }),
                  *best);
  }
  while (!points.empty()) {  // merge: each point against its neighbouring segments
    std::optional<size_t> weakest;
    for (size_t i = 0; i < points.size(); ++i) {
      const size_t begin = i == 0 ? 0 : points[i - 1].index;
      const size_t end = i + 1 == points.size() ? x.size() : points[i + 1].index;
      points[i] = Test(x, begin, points[i].index, end);
      if (!Passes(points[i], options) && (!weakest || points[i].p > points[*weakest].p))
        weakest = i;
    }
    if (!weakest) break;
    points.erase(points.begin() + static_cast<std::ptrdiff_t>(*weakest));
  }
  return points;
}

}  // namespace sparsebench
