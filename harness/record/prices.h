#pragma once

#include <string>
#include <vector>

namespace sparsebench {

// A row of harness/instances.csv.
struct Instance {
  std::string name, processor, arch, accelerator, region, as_of, source;
  int vcpus = 0;
  double memory_gib = 0;
  double usd_per_hour = 0;
};

std::vector<Instance> ReadInstances(const std::string& path);  // DataError on a bad row

// What a run is labelled with: the machine it really ran on and its hourly price
// (negative when unknown: costs are then left empty, never guessed).
struct Pricing {
  std::string instance = "unspecified";
  double price_per_hour = -1;
};

// --instance NAME looks the price up; --price-per-hour X (any machine, e.g. a laptop at 0)
// overrides it. ConfigError for an instance not in the table.
Pricing ResolvePricing(const std::string& prices_path, const std::string& instance, double price_per_hour);

}  // namespace sparsebench
