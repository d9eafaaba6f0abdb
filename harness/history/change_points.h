#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace sparsebench {

// E-divisive means with a Student t-test to split and to merge (Apache Otava's method), and a
// minimum magnitude: deterministic, no permutations.
struct ChangePointOptions {
  double alpha = 0.001;         // a split's Student t-test p-value must be below this
  double min_magnitude = 0.05;  // |mean after / mean before - 1| at least this
  size_t min_segment = 2;       // points on each side of a split at least
};

struct ChangePoint {
  size_t index = 0;  // the first point of the new segment
  double mean_before = 0, mean_after = 0, p = 1;
  double change() const { return mean_after / mean_before - 1; }
};

// The change points of `x`, in order. Repeatedly splits the segment whose best split (the
// largest energy statistic) passes the t-test and the magnitude; then drops, weakest first,
// every point that no longer passes against its neighbouring segments.
std::vector<ChangePoint> FindChangePoints(std::span<const double> x,
                                          const ChangePointOptions& options = {});

// The half-open ranges [begin, end) between change points: the segments.
struct Segment {
  size_t begin = 0, end = 0;
};
std::vector<Segment> Segments(size_t n, const std::vector<ChangePoint>& points);

}  // namespace sparsebench
