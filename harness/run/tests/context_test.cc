#include "harness/run/context.h"

#include <gtest/gtest.h>

#include "harness/record/machine.h"

namespace sparsebench {
namespace {

nlohmann::json Vm() {
  return {{"cpu_model", "AMD EPYC"},
          {"cpu_id", "cpu family 26 model 2 stepping 1"},
          {"arch", "x86_64"},
          {"isa_flags", "avx2 avx512f avx512_bf16"},
          {"cores", 2},
          {"memory_gb", 23.54},
          {"kernel", "6.18.44"},
          {"hypervisor", "KVM"},
          {"blas_core", "Haswell"},
          {"date", "2026-12-07T00:00:00Z"}};
}

TEST(MachineFingerprint, AnotherVmOfTheSameHardwareIsTheSameMachine) {
  nlohmann::json other = Vm();
  other["kernel"] = "6.1.0";
  other["hypervisor"] = "none seen";
  other["blas_core"] = "SkylakeX";
  other["date"] = "2026-12-08T00:00:00Z";
  other["memory_gb"] = 23.61;  // the same 24 GiB, a few MB more visible to this kernel
  EXPECT_EQ(MachineFingerprint(Vm()).size(), 8u);
  EXPECT_EQ(MachineFingerprint(other), MachineFingerprint(Vm()));
  EXPECT_EQ(MachineName(other), MachineName(Vm()));
  EXPECT_EQ(MachineName(Vm()), "AMD EPYC, 2 cores [" + MachineFingerprint(Vm()) + "]");
}

TEST(MachineFingerprint, AnotherCpuGenerationUnderTheSameNameIsAnotherMachine) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"cpu_id", "cpu family 25 model 17 stepping 1"},
           {"isa_flags", "avx2"},
           {"cores", 4},
           {"memory_gb", 31.3}}) {
    nlohmann::json other = Vm();
    other[key] = value;
    EXPECT_NE(MachineFingerprint(other), MachineFingerprint(Vm())) << key;
    EXPECT_NE(MachineName(other), MachineName(Vm())) << key;
  }
}

TEST(MachineFingerprint, OldContextsWithoutTheKeyKeepTheirOldName) {
  nlohmann::json old = Vm();
  old.erase("cpu_id");
  EXPECT_EQ(MachineFingerprint(old), "");
  EXPECT_EQ(MachineName(old), "AMD EPYC, 2 cores");
}

TEST(MachineFingerprint, ThisMachineHasOne) {
  const nlohmann::json c = CaptureContext();
  EXPECT_EQ(c.value("machine_fingerprint", std::string()), MachineFingerprint(c));
  EXPECT_FALSE(c.value("hardware_key", std::string()).empty());
  EXPECT_FALSE(c.value("kernel", std::string()).empty());
  EXPECT_FALSE(c.value("hypervisor", std::string()).empty());
}

}  // namespace
}  // namespace sparsebench
