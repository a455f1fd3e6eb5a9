#include "core/peer_results.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

// The worker's document as the protocol describes it (references/kbuild-output.md).
nlohmann::json Results() {
  return nlohmann::json::parse(R"({
    "schema": "kbuild-peer-results/1", "device": "NVIDIA H200", "torch": "2.11.0+cu130",
    "mode": "events+l2flush",
    "peers": [{"name": "torch.compile", "available": true, "reason": ""},
              {"name": "liger", "available": true, "reason": ""},
              {"name": "quack", "available": false,
               "reason": "ModuleNotFoundError: No module named 'quack'"}],
    "records": [{"benchmark": "rms_norm", "case": "2048x4096 bf16",
                 "ours": {"time_us": {"median": 14.5, "p10": 14.3, "p90": 14.9},
                          "host_us_per_call": 4.1, "problem": ""},
                 "peers": [{"name": "torch.compile",
                            "time_us": {"median": 15.95, "p10": 15.0, "p90": 16.3},
                            "host_us_per_call": 31.0, "speedup": 1.1, "gbps": 2104.0,
                            "max_abs_error": 0.0078, "problem": ""},
                           {"name": "liger", "time_us": {"median": 13.0, "p10": 12.9, "p90": 13.2},
                            "host_us_per_call": 12.0, "speedup": 0, "gbps": 2581.0,
                            "max_abs_error": 3.5,
                            "problem": "incorrect (mismatch): 12 of 8388608 elements outside atol=0.0625"}]}],
    "problems": ["peers.py has no entry for benchmark 'rms_norm_strided': its cases have no peers"]
  })");
}

// The harness's document for the same run: one timed case with a C++ baseline.
nlohmann::json HarnessDocument() {
  return nlohmann::json::parse(R"({
    "schema": "kbuild-harness-bench/1", "device": "NVIDIA H200",
    "cases": [{"benchmark": "rms_norm", "case": "2048x4096 bf16", "verdict": "ok",
               "correctness_only": false, "time_us": {"median": 14.2},
               "baselines": [{"name": "at::rms_norm", "speedup": 1.15, "host_us_per_call": 3.9}],
               "problems": []},
              {"benchmark": "rms_norm", "case": "1x8 bf16", "verdict": "ok",
               "correctness_only": true, "baselines": [], "problems": []}],
    "failed": 0})");
}

TEST(PeerResults, ParsesTheProtocolDocument) {
  auto r = ParsePeerResults(Results());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->mode, "events+l2flush");
  ASSERT_EQ(r->peers.size(), 3u);
  EXPECT_FALSE(r->peers[2].available);
  ASSERT_EQ(r->records.size(), 1u);
  EXPECT_DOUBLE_EQ(r->records[0].ours.time_us.median, 14.5);
  EXPECT_DOUBLE_EQ(r->records[0].peers[0].host_us_per_call, 31.0);
  EXPECT_EQ(r->problems.size(), 1u);
}

TEST(PeerResults, MergedPeersAreBaselinesWithSpeedupFromTheWorkersOwnOpTime) {
  auto r = ParsePeerResults(Results());
  ASSERT_TRUE(r.ok());
  nlohmann::json doc = HarnessDocument();
  MergePeerResults(*r, &doc);
  const nlohmann::json& baselines = doc["cases"][0]["baselines"];
  ASSERT_EQ(baselines.size(), 3u);
  EXPECT_EQ(baselines[0]["name"], "at::rms_norm");  // the harness's own stays first
  const nlohmann::json& compiled = baselines[1];
  EXPECT_EQ(compiled["name"], "torch.compile");
  EXPECT_EQ(compiled["source"], "python");
  // 15.95 / 14.5, both timed in the worker (not against the binary's 14.2).
  EXPECT_DOUBLE_EQ(compiled["speedup"].get<double>(), 15.95 / 14.5);
  EXPECT_EQ(compiled["host_us_per_call"], 31.0);
  EXPECT_EQ(compiled["time_us"], (nlohmann::json{{"median", 15.95}, {"p10", 15.0}, {"p90", 16.3}}));
  EXPECT_EQ(compiled["problem"], "");
  EXPECT_EQ(doc["cases"][0]["ours_python"]["host_us_per_call"], 4.1);
  EXPECT_EQ(doc["peer_mode"], "events+l2flush");
  EXPECT_EQ(doc["peers"][2],
            (nlohmann::json{{"name", "quack"},
                            {"available", false},
                            {"reason", "ModuleNotFoundError: No module named 'quack'"}}));
}

TEST(PeerResults, UnavailableAndIncorrectPeersAreReportedByNameAndFailNothing) {
  auto r = ParsePeerResults(Results());
  ASSERT_TRUE(r.ok());
  nlohmann::json doc = HarnessDocument();
  MergePeerResults(*r, &doc);
  const nlohmann::json& liger = doc["cases"][0]["baselines"][2];
  EXPECT_EQ(liger["speedup"], 0.0);  // an incorrect peer is not compared
  EXPECT_EQ(doc["peer_problems"],
            (nlohmann::json{
                "quack: not available: ModuleNotFoundError: No module named 'quack'",
                "peers.py has no entry for benchmark 'rms_norm_strided': its cases have no peers",
                "rms_norm/2048x4096 bf16: liger: incorrect (mismatch): 12 of 8388608 elements "
                "outside atol=0.0625"}));
  EXPECT_EQ(doc["cases"][0]["verdict"], "ok");
  EXPECT_EQ(doc["failed"], 0);
}

// The harness document after merging results in which our op had `problem` in the worker.
nlohmann::json MergedWithOurProblem(const std::string& problem) {
  nlohmann::json results = Results();
  results["records"][0]["ours"]["problem"] = problem;
  auto r = ParsePeerResults(results);
  EXPECT_TRUE(r.ok());
  nlohmann::json doc = HarnessDocument();
  if (r.ok()) MergePeerResults(*r, &doc);
  return doc;
}

TEST(PeerResults, OurOpFailingItsValueCheckInTheWorkerFailsTheCase) {
  const nlohmann::json doc = MergedWithOurProblem("incorrect (nonfinite): 3 NaN (first at [0, 7])");
  const nlohmann::json& c = doc["cases"][0];
  EXPECT_EQ(c["verdict"], "fail");
  EXPECT_EQ(c["problems"], (nlohmann::json{"value check of our op in the peer worker "
                                           "(benchmarks/peers.py ours()): incorrect (nonfinite): "
                                           "3 NaN (first at [0, 7])"}));
  EXPECT_EQ(doc["failed"], 1);
  EXPECT_EQ(c["baselines"][1]["speedup"], 0.0);  // nothing to compare with
}

TEST(PeerResults, OtherProblemsOfOurOpAreReportedWithoutFailingTheCase) {
  const nlohmann::json doc = MergedWithOurProblem("raised: TypeError: ours() takes 3 arguments");
  EXPECT_EQ(doc["cases"][0]["verdict"], "ok");
  EXPECT_NE(std::find(doc["peer_problems"].begin(), doc["peer_problems"].end(),
                      "rms_norm/2048x4096 bf16: ours (python): raised: TypeError: ours() takes 3 "
                      "arguments"),
            doc["peer_problems"].end());
}

TEST(PeerResults, RecordsKbuildCannotPlaceAreNamedNotMerged) {
  nlohmann::json results = Results();
  nlohmann::json unknown = results["records"][0];
  unknown["case"] = "9x9 bf16";
  nlohmann::json correctness_only = results["records"][0];
  correctness_only["case"] = "1x8 bf16";
  results["records"].push_back(results["records"][0]);  // twice
  results["records"].push_back(unknown);
  results["records"].push_back(correctness_only);
  results["peers"] = nlohmann::json::array();
  results["problems"] = nlohmann::json::array();
  results["records"][0]["peers"][1]["problem"] = "";
  results["records"][0]["peers"][1]["name"] = "at::rms_norm";  // the C++ baseline's name
  auto r = ParsePeerResults(results);
  ASSERT_TRUE(r.ok());
  nlohmann::json doc = HarnessDocument();
  MergePeerResults(*r, &doc);
  EXPECT_EQ(doc["cases"][0]["baselines"].size(), 2u);
  EXPECT_FALSE(doc["cases"][1].contains("ours_python"));
  EXPECT_EQ(doc["peer_problems"],
            (nlohmann::json{
                "rms_norm/2048x4096 bf16: peer 'at::rms_norm' has the name of another baseline "
                "of this case; rename it in benchmarks/peers.py",
                "rms_norm/2048x4096 bf16: the peer worker timed this case twice; the second "
                "ignored",
                "rms_norm/9x9 bf16: the peer worker timed a case kbuild did not give it; ignored",
                "rms_norm/1x8 bf16: the peer worker timed a case kbuild did not give it; "
                "ignored"}));
}

TEST(PeerResults, WrongSchemaIsRefused) {
  nlohmann::json results = Results();
  results["schema"] = "kbuild-peer-results/2";
  auto r = ParsePeerResults(results);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInternal);
  EXPECT_EQ(r.error().message,
            "the peer results are not a kbuild-peer-results/1 document: schema: expected "
            "\"kbuild-peer-results/1\", got \"kbuild-peer-results/2\"");
}

TEST(PeerResults, WrongTypesAreRefusedNamingTheKey) {
  const std::pair<std::string, std::function<void(nlohmann::json&)>> cases[] = {
      {"records[0].peers[1].time_us.median: expected a number >= 0",
       [](nlohmann::json& j) { j["records"][0]["peers"][1]["time_us"]["median"] = "13"; }},
      {"records[0].ours.host_us_per_call: expected a number >= 0",
       [](nlohmann::json& j) { j["records"][0]["ours"]["host_us_per_call"] = -1; }},
      {"records[0].ours.problem: missing",
       [](nlohmann::json& j) { j["records"][0]["ours"].erase("problem"); }},
      {"peers[0].available: expected true or false",
       [](nlohmann::json& j) { j["peers"][0]["available"] = "yes"; }},
      {"peers[1].name: expected a non-empty string",
       [](nlohmann::json& j) { j["peers"][1]["name"] = ""; }},
      {"records: expected a list",
       [](nlohmann::json& j) {
         j["records"] = {{"a", 1}};
       }},
      {"problems[0]: expected a string", [](nlohmann::json& j) { j["problems"][0] = 7; }},
      {"the document: expected an object", [](nlohmann::json& j) { j = nlohmann::json::array(); }},
  };
  for (const auto& [expected, spoil] : cases) {
    nlohmann::json results = Results();
    spoil(results);
    auto r = ParsePeerResults(results);
    ASSERT_FALSE(r.ok()) << expected;
    EXPECT_EQ(r.error().message,
              "the peer results are not a kbuild-peer-results/1 document: " + expected);
  }
}

TEST(PeerResults, MessagesFromPeersPyAreOneLineAndCut) {
  nlohmann::json results = Results();
  results["peers"][2]["reason"] = "line one\n\x1b[2Jline two" + std::string(1000, 'x');
  auto r = ParsePeerResults(results);
  ASSERT_TRUE(r.ok());
  const std::string& reason = r->peers[2].reason;
  EXPECT_TRUE(reason.starts_with("line one  [2Jline two")) << reason;
  EXPECT_TRUE(reason.ends_with("...")) << reason;
  EXPECT_LT(reason.size(), 410u);
}

TEST(PeerResults, ReadRefusesASymlinkAHugeFileAndBadJson) {
  MemoryFileSystem fs;
  fs.PlantSymlink("/p/build/bench-results/peers.json", "/etc/passwd");
  auto link = ReadPeerResults(fs, "/p/build/bench-results/peers.json");
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.error().Located(),
            "/p/build/bench-results/peers.json: not a regular file (it is a symbolic link)");

  (void)fs.Write("/p/big.json", std::string(kMaxPeerResultsBytes + 1, ' '));
  auto big = ReadPeerResults(fs, "/p/big.json");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("larger than"), std::string::npos) << big.error().message;

  (void)fs.Write("/p/bad.json", "{\"schema\": NaN}");  // Python's json.dumps writes NaN
  auto bad = ReadPeerResults(fs, "/p/bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().Located(), "/p/bad.json: the peer results are not valid JSON");

  auto missing = ReadPeerResults(fs, "/p/none.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "the peer worker exited 0 but wrote no results");

  (void)fs.Write("/p/good.json", Results().dump());
  EXPECT_TRUE(ReadPeerResults(fs, "/p/good.json").ok());
}

}  // namespace
}  // namespace kb
