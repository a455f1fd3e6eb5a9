#include "core/peer_job.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

nlohmann::json Record(const std::string& name, const std::string& verdict = "ok",
                      bool correctness_only = false) {
  return {{"benchmark", "rms_norm"},
          {"op", "_my_norm_1a2b::rms_norm"},
          {"case", name},
          {"shape", {2048, 4096}},
          {"dtype", "bf16"},
          {"correctness_only", correctness_only},
          {"warmup", 10},
          {"iterations", 100},
          {"bytes", 33562624.0},
          {"atol", 0.0625},
          {"rtol", 0.0625},
          {"verdict", verdict}};
}

nlohmann::json Document(nlohmann::json cases) {
  return {{"schema", "kbuild-harness-bench/1"}, {"cases", std::move(cases)}};
}

PeerJobSettings Settings() {
  PeerJobSettings s;
  s.peers_file = "/p/benchmarks/peers.py";
  s.project_library = "/p/build/cmake/_my_norm_1a2b.so";
  s.op_namespace = "_my_norm_1a2b";
  s.peak_gbps = 4273.0;
  s.dram_gbps = 4814.3;
  return s;
}

TEST(PeerJob, CarriesTheRunSettingsAndEachTimedCase) {
  const PeerJob job = MakePeerJob(Document({Record("2048x4096 bf16")}), Settings());
  EXPECT_EQ(job.document, nlohmann::json::parse(R"({"schema": "kbuild-peer-job/1",
              "peers_file": "/p/benchmarks/peers.py",
              "project_library": "/p/build/cmake/_my_norm_1a2b.so",
              "namespace": "_my_norm_1a2b",
              "graph": false, "warmup": 10, "iterations": 100, "cap_long_calls": true,
              "peak_gbps": 4273.0, "dram_gbps": 4814.3,
              "cases": [{"benchmark": "rms_norm", "case": "2048x4096 bf16",
                         "shape": [2048, 4096], "dtype": "bf16", "bytes": 33562624.0,
                         "atol": 0.0625, "rtol": 0.0625, "correctness_only": false}]})"));
  EXPECT_TRUE(job.skipped.empty());
}

TEST(PeerJob, LeavesOutFailedAndCorrectnessOnlyCasesSilently) {
  const PeerJob job = MakePeerJob(
      Document({Record("a", "fail"), Record("1x8 bf16", "ok", true), Record("b")}), Settings());
  ASSERT_EQ(job.cases(), 1u);
  EXPECT_EQ(job.document["cases"][0]["case"], "b");
  EXPECT_TRUE(job.skipped.empty());
}

TEST(PeerJob, AskedLaunchCountsAndGraphModeWin) {
  PeerJobSettings s = Settings();
  s.graph = true;
  s.warmup = 3;
  s.iterations = 500;
  const PeerJob job = MakePeerJob(Document({Record("a")}), s);
  EXPECT_EQ(job.document["graph"], true);
  EXPECT_EQ(job.document["warmup"], 3);
  EXPECT_EQ(job.document["iterations"], 500);
  EXPECT_EQ(job.document["cap_long_calls"], false) << "--iters: exactly 500, as the binary";
}

TEST(PeerJob, UnaskedLaunchCountsAreWhatTheHarnessRan) {
  nlohmann::json record = Record("a");
  record["warmup"] = 25;
  record["iterations"] = 200;
  const PeerJob job = MakePeerJob(Document({record}), Settings());
  EXPECT_EQ(job.document["warmup"], 25);
  EXPECT_EQ(job.document["iterations"], 200);
}

// An older harness wrote no tolerance; the case is named, not sent with a guessed one.
TEST(PeerJob, CaseWithoutToleranceOrWithAnOddShapeIsNamedNotSent) {
  nlohmann::json no_tolerance = Record("a");
  no_tolerance.erase("atol");
  nlohmann::json odd_shape = Record("b");
  odd_shape["shape"] = {2048, -1};
  nlohmann::json odd_dtype = Record("c");
  odd_dtype["dtype"] = "fp8";
  const PeerJob job = MakePeerJob(Document({no_tolerance, odd_shape, odd_dtype}), Settings());
  EXPECT_EQ(job.cases(), 0u);
  EXPECT_EQ(job.skipped,
            (std::vector<std::string>{
                "rms_norm/a: the harness record has no tolerance (atol, rtol): rebuild the "
                "project with this kbuild (kbuild build), whose harness writes it",
                "rms_norm/b: the harness record has no shape (a list of sizes)",
                "rms_norm/c: the harness record's dtype is not one of bf16, fp16, fp32, fp64, "
                "int32, int64, uint8, bool"}));
}

TEST(PeerJob, ADocumentWithoutCasesGivesAnEmptyJob) {
  EXPECT_EQ(MakePeerJob(nlohmann::json::object(), Settings()).cases(), 0u);
  EXPECT_EQ(MakePeerJob(Document("not a list"), Settings()).cases(), 0u);
}

}  // namespace
}  // namespace kb
