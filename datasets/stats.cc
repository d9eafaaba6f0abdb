#include "datasets/stats.h"

#include <fmt/format.h>

#include <algorithm>

namespace sparsebench {

DatasetStats ComputeStats(const Dataset& data) {
  DatasetStats s;
  s.rows = data.rows();
  s.features = data.num_features;
  s.labels = data.num_labels;
  s.nonzeros = data.nnz();
  s.csr_bytes = data.csr_bytes();
  for (size_t r = 0; r < s.rows; ++r) {
    auto labels = data.labels(r);
    s.max_labels_per_row = std::max<uint64_t>(s.max_labels_per_row, labels.size());
    if (data.has_features()) {
      s.max_features_per_row =
          std::max<uint64_t>(s.max_features_per_row, data.row_offsets[r + 1] - data.row_offsets[r]);
    }
  }
  if (s.rows > 0) {
    s.features_per_row = static_cast<double>(s.nonzeros) / static_cast<double>(s.rows);
    s.labels_per_row = static_cast<double>(data.label_ids.size()) / static_cast<double>(s.rows);
    if (data.has_text()) s.text_bytes_per_row = static_cast<double>(data.text.chars.size()) / s.rows;
  }
  // Rows per seen label, from the label ids themselves: memory follows the data, never L
  // (a header may claim any L up to kMaxDimension).
  std::vector<uint32_t> ids(data.label_ids);
  std::sort(ids.begin(), ids.end());
  std::vector<uint64_t> frequency;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j < ids.size() && ids[j] == ids[i]) ++j;
    frequency.push_back(j - i);
    i = j;
  }
  std::sort(frequency.begin(), frequency.end());
  s.labels_seen = static_cast<uint32_t>(frequency.size());
  if (!frequency.empty()) {
    s.rows_per_seen_label = static_cast<double>(data.label_ids.size()) / frequency.size();
    for (double q : kLabelQuantiles) {
      const auto idx = static_cast<size_t>(q * static_cast<double>(frequency.size() - 1) + 0.5);
      s.label_frequency_quantiles.push_back(frequency[idx]);
    }
  }
  return s;
}

std::string FormatStats(const DatasetStats& s) {
  std::string out = fmt::format(
      "rows                 {}\nfeatures (D)         {}\nlabels (L)           {}\n"
      "nonzeros             {}\nfeatures per row     {:.2f} (max {})\n"
      "labels per row       {:.2f} (max {})\nlabels seen          {} ({:.2f} rows each)\n",
      s.rows, s.features, s.labels, s.nonzeros, s.features_per_row, s.max_features_per_row,
      s.labels_per_row, s.max_labels_per_row, s.labels_seen, s.rows_per_seen_label);
  if (!s.label_frequency_quantiles.empty()) {
    out += "label frequency      ";
    for (size_t i = 0; i < kLabelQuantiles.size(); ++i) {
      out += fmt::format("{}p{:g}={}", i ? " " : "", kLabelQuantiles[i] * 100,
                         s.label_frequency_quantiles[i]);
    }
    out += "\n";
  }
  if (s.text_bytes_per_row > 0) out += fmt::format("text bytes per row   {:.1f}\n", s.text_bytes_per_row);
  out += fmt::format("CSR bytes            {}\n", s.csr_bytes);
  return out;
}

}  // namespace sparsebench
