#include "datasets/synthetic.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "datasets/data_error.h"
#include "datasets/synth_text.h"
#include "datasets/synth_xmc.h"

namespace sparsebench {

std::vector<std::string> SyntheticPresets() { return {"amazon670k", "yelp", "dbpedia"}; }

SynthSummary GenerateSynthetic(const SynthOptions& options, const std::string& out_dir) {
  if (!(options.scale > 0 && options.scale <= 100) || !std::isfinite(options.scale)) {
    throw std::invalid_argument("scale must be in (0, 100], got " + std::to_string(options.scale));
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw DataError(out_dir, 0, "cannot create directory: " + ec.message());
  if (options.labels != 0 && options.preset != "amazon670k") {
    throw std::invalid_argument("--labels applies to the amazon670k preset only");
  }
  if (options.preset == "amazon670k") {
    XmcShape shape = Amazon670kShape(options.scale);
    if (options.labels != 0) shape.labels = options.labels;
    return WriteSyntheticXmc(shape, options.seed, options.threads, out_dir);
  }
  if (options.preset == "yelp") {
    return WriteSyntheticYelp(options.scale, options.seed, options.threads, out_dir);
  }
  if (options.preset == "dbpedia") {
    return WriteSyntheticDbpedia(options.scale, options.seed, options.threads, out_dir);
  }
  throw std::invalid_argument("unknown preset '" + options.preset +
                              "' (known: amazon670k, yelp, dbpedia)");
}

}  // namespace sparsebench
