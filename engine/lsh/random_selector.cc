// The control: active neurons are the forced ones plus a uniform random sample.
#include "engine/lsh/selectors.h"

namespace sparsebench {
namespace {

class RandomSelector : public NeuronSelector {
 public:
  RandomSelector(uint32_t rows, uint32_t run) : rows_(rows), run_(run) {}
  void Rebuild(const float*, uint32_t, uint32_t, int) override {}
  void Rebuild(const uint16_t*, uint32_t, uint32_t, int) override {}
  void Rehash(uint64_t) override {}
  void Select(std::span<const float>, std::span<const uint32_t> forced, uint32_t target,
              SelectorScratch& scratch, Rng& rng, std::vector<uint32_t>& active) const override {
    scratch.BeginWith(rows_, forced, active);
    PadWithRandom(rows_, target, run_, scratch, rng, active);
    scratch.End(active);
  }
  std::string Describe() const override { return "random"; }
  size_t bytes() const override { return 0; }

 private:
  uint32_t rows_;
  uint32_t run_;
};

}  // namespace

std::unique_ptr<NeuronSelector> MakeRandomSelector(const SelectorParams& params, uint32_t rows) {
  return std::make_unique<RandomSelector>(rows, params.random_run);
}

}  // namespace sparsebench
