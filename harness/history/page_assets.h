#pragma once

// The history page's scripts and styles, compiled in from harness/history/page/ (see
// harness/CMakeLists.txt) so that the page is one file.
namespace sparsebench::page_assets {

extern const char* const kUplotJs;
extern const char* const kUplotCss;
extern const char* const kUplotVersion;
extern const char* const kHistoryJs;
extern const char* const kHistoryCss;

}  // namespace sparsebench::page_assets
