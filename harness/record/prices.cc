#include "harness/record/prices.h"

#include <cstdlib>

#include "datasets/data_error.h"
#include "engine/api/engine_error.h"
#include "harness/record/csv.h"

namespace sparsebench {

std::vector<Instance> ReadInstances(const std::string& path) {
  const auto rows = ReadCsv(path);
  const std::vector<std::string> header = {"instance", "vcpus", "memory_gib", "processor", "arch",
                                           "accelerator", "usd_per_hour", "region", "as_of", "source"};
  if (rows.empty() || rows[0] != header) throw DataError(path, 1, "the header must be: instance,vcpus,memory_gib,processor,arch,accelerator,usd_per_hour,region,as_of,source");
  std::vector<Instance> instances;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    if (f.size() != header.size()) throw DataError(path, r + 1, "expected 10 fields, found " + std::to_string(f.size()));
    char* end = nullptr;
    Instance i{f[0], f[3], f[4], f[5], f[7], f[8], f[9]};
    i.vcpus = std::atoi(f[1].c_str());
    i.memory_gib = std::strtod(f[2].c_str(), &end);
    i.usd_per_hour = std::strtod(f[6].c_str(), &end);
    if (*end != '\0' || !(i.usd_per_hour >= 0) || i.vcpus <= 0) throw DataError(path, r + 1, "bad vcpus or usd_per_hour");
    instances.push_back(i);
  }
  return instances;
}

Pricing ResolvePricing(const std::string& prices_path, const std::string& instance, double price_per_hour) {
  Pricing p;
  if (!instance.empty()) {
    p.instance = instance;
    bool found = false;
    for (const Instance& i : ReadInstances(prices_path)) {
      if (i.name == instance) p.price_per_hour = i.usd_per_hour, found = true;
    }
    if (!found && price_per_hour < 0) {
      throw ConfigError("instance '" + instance + "' is not in " + prices_path + "; give --price-per-hour");
    }
  } else if (price_per_hour >= 0) {
    p.instance = "custom";
  }
  if (price_per_hour >= 0) p.price_per_hour = price_per_hour;
  return p;
}

}  // namespace sparsebench
