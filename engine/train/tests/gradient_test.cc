// The optimised sample pass against a plain double-precision reference, and its gradients
// against finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "engine/api/tests/test_util.h"
#include "engine/common/aligned.h"
#include "engine/train/sample_pass.h"

namespace sparsebench {
namespace {

struct Reference {
  std::vector<double> hidden, hidden_grad, output_grad;
  double loss = 0;
};

// Dense softmax over every output, written as plainly as possible.
Reference DenseReference(const Network& net, const SparseRow& x) {
  const uint32_t h = net.shape.hidden_dim, outputs = net.shape.output_dim;
  Reference ref;
  ref.hidden.assign(h, 0.0);
  for (uint32_t j = 0; j < h; ++j) {
    double s = net.input.bias[j];
    for (size_t i = 0; i < x.features.size(); ++i)
      s += double{x.values[i]} * net.input.row(x.features[i])[j];
    ref.hidden[j] = std::max(s, 0.0);
  }
  std::vector<double> logits(outputs);
  double max_logit = -1e300;
  for (uint32_t o = 0; o < outputs; ++o) {
    double s = net.output.bias[o];
    for (uint32_t j = 0; j < h; ++j) s += double{net.output.row(o)[j]} * ref.hidden[j];
    logits[o] = s;
    max_logit = std::max(max_logit, s);
  }
  double z = 0;
  for (double l : logits) z += std::exp(l - max_logit);
  ref.output_grad.resize(outputs);
  const double target = 1.0 / static_cast<double>(x.labels.size());
  for (uint32_t o = 0; o < outputs; ++o) {
    const double p = std::exp(logits[o] - max_logit) / z;
    const bool label = std::find(x.labels.begin(), x.labels.end(), o) != x.labels.end();
    ref.output_grad[o] = p - (label ? target : 0.0);
    if (label) ref.loss -= target * std::log(p);
  }
  ref.hidden_grad.assign(h, 0.0);
  for (uint32_t j = 0; j < h; ++j) {
    if (ref.hidden[j] <= 0) continue;
    for (uint32_t o = 0; o < outputs; ++o)
      ref.hidden_grad[j] += ref.output_grad[o] * net.output.row(o)[j];
  }
  return ref;
}

void ExpectClose(double actual, double expected, double rel, const char* what) {
  EXPECT_LE(std::abs(actual - expected), rel * std::max(1.0, std::abs(expected)) + 1e-7) << what;
}

Network RandomNetwork(uint32_t features, uint32_t hidden, uint32_t outputs, uint64_t seed) {
  Network net({features, hidden, outputs}, seed);
  Rng rng(seed + 1);
  for (float& b : net.input.bias) b = static_cast<float>(rng.Uniform() * 0.2 - 0.05);
  for (float& b : net.output.bias) b = static_cast<float>(rng.Uniform() * 0.2 - 0.1);
  for (float& w : net.input.w) w *= 20.0f;  // sizeable activations, so ReLU matters
  return net;
}

TEST(SamplePass, EveryNeuronActiveEqualsDenseReference) {
  Dataset data = testing::RandomDataset(20, 40, 30, 3);
  Network net = RandomNetwork(40, 16, 30, 5);
  std::vector<uint32_t> all(30);
  std::iota(all.begin(), all.end(), 0u);
  FloatVector hidden(16), hidden_grad(16);
  std::vector<float> output_grads;
  for (size_t r = 0; r < data.rows(); ++r) {
    const SparseRow x = data.row(r);
    const Reference ref = DenseReference(net, x);
    net.Hidden(x.features, x.values, hidden.data());
    const float loss =
        ForwardBackward(net, x, all, false, hidden.data(), hidden_grad.data(), output_grads);
    ExpectClose(loss, ref.loss, 1e-5, "loss");
    for (uint32_t j = 0; j < 16; ++j) {
      ExpectClose(hidden[j], ref.hidden[j], 1e-5, "hidden");
      ExpectClose(hidden_grad[j], ref.hidden_grad[j], 1e-5, "hidden grad");
    }
    for (uint32_t o = 0; o < 30; ++o)
      ExpectClose(output_grads[o], ref.output_grad[o], 1e-5, "output grad");
  }
}

double Loss(const Network& net, const SparseRow& x, std::span<const uint32_t> active) {
  FloatVector hidden(net.shape.hidden_dim), grad(net.shape.hidden_dim);
  std::vector<float> out;
  net.Hidden(x.features, x.values, hidden.data());
  return ForwardBackward(net, x, active, false, hidden.data(), grad.data(), out);
}

double PreActivation(const Network& net, const SparseRow& x, uint32_t j) {
  double s = net.input.bias[j];
  for (size_t i = 0; i < x.features.size(); ++i) s += x.values[i] * net.input.row(x.features[i])[j];
  return s;
}

// d loss / d w by central differences, for one weight.
double Numeric(Network& net, float& weight, const SparseRow& x, std::span<const uint32_t> active) {
  const float saved = weight, eps = 1e-2f;
  weight = saved + eps;
  const double up = Loss(net, x, active);
  weight = saved - eps;
  const double down = Loss(net, x, active);
  weight = saved;
  return (up - down) / (2.0 * eps);
}

TEST(SamplePass, GradientsMatchFiniteDifferences) {
  Dataset data = testing::RandomDataset(4, 12, 9, 11);
  Network net = RandomNetwork(12, 8, 9, 13);
  const std::vector<uint32_t> active = {0, 2, 3, 5, 8};  // a sparse active set
  FloatVector hidden(8), hidden_grad(8);
  std::vector<float> output_grads;
  for (size_t r = 0; r < data.rows(); ++r) {
    const SparseRow x = data.row(r);
    if (std::any_of(x.labels.begin(), x.labels.end(), [&](uint32_t l) {
          return std::find(active.begin(), active.end(), l) == active.end();
        })) {
      continue;  // the loss is defined over the active set, which must hold the labels
    }
    net.Hidden(x.features, x.values, hidden.data());
    ForwardBackward(net, x, active, false, hidden.data(), hidden_grad.data(), output_grads);
    for (size_t a = 0; a < active.size(); ++a) {
      for (uint32_t j = 0; j < 8; ++j) {
        const double analytic = output_grads[a] * hidden[j];  // d loss / d output.w[active[a]][j]
        const double numeric = Numeric(net, net.output.row(active[a])[j], x, active);
        EXPECT_NEAR(analytic, numeric, 2e-3 + 2e-2 * std::abs(numeric)) << "output weight";
      }
      EXPECT_NEAR(output_grads[a], Numeric(net, net.output.bias[active[a]], x, active), 2e-3);
    }
    for (size_t i = 0; i < x.features.size(); ++i) {
      for (uint32_t j = 0; j < 8; ++j) {
        if (std::abs(PreActivation(net, x, j)) < 0.05) continue;  // too near the ReLU kink
        const double analytic = x.values[i] * hidden_grad[j];
        const double numeric = Numeric(net, net.input.row(x.features[i])[j], x, active);
        EXPECT_NEAR(analytic, numeric, 2e-3 + 2e-2 * std::abs(numeric)) << "input weight";
      }
    }
  }
}

}  // namespace
}  // namespace sparsebench
