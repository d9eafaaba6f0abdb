#pragma once

#include <string>

#include "harness/history/page_model.h"

namespace sparsebench {

// The history page: one self-contained HTML file (styles, uPlot, the data and the script
// inline; it opens from disk with no server and no network). `generated`: when it was written.
std::string PageHtml(const HistoryPage& page, const std::string& generated);

// The same history as markdown for a pull request's comment: the verdict, the changes and a
// sparkline per cell; `page_link` (when not empty) names the HTML page.
std::string PageMarkdown(const HistoryPage& page, const std::string& page_link);

// The verdict's one line, shared by the page and the summary: "no regression at abc12345" ...
std::string VerdictLine(const HistoryPage& page);

}  // namespace sparsebench
