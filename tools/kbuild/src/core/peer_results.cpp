#include "core/peer_results.h"

#include <cmath>
#include <set>

#include "core/json_fields.h"
#include "core/message_text.h"
#include "core/peer_job.h"

namespace kb {

namespace {

// Bounds on what one results file may list; a sane run is far below them.
constexpr size_t kMaxRecords = 100000;
constexpr size_t kMaxPeers = 64;
constexpr size_t kMaxProblems = 1000;

// The first key of the document that is missing or of the wrong type. Thrown only inside
// ParsePeerResults, which turns it into an Error.
struct BadField {
  std::string where;
  std::string what;  // "missing", "expected a number", ...
};

std::string Join(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

const nlohmann::json& Field(const nlohmann::json& object, const std::string& where,
                            const std::string& key) {
  if (!object.is_object())
    throw BadField{where.empty() ? "the document" : where, "expected an object"};
  const auto it = object.find(key);
  if (it == object.end()) throw BadField{Join(where, key), "missing"};
  return *it;
}

std::string Text(const nlohmann::json& object, const std::string& where, const std::string& key,
                 size_t max) {
  const nlohmann::json& value = Field(object, where, key);
  if (!value.is_string()) throw BadField{Join(where, key), "expected a string"};
  return OneLine(value.get<std::string>(), max);
}

std::string Name(const nlohmann::json& object, const std::string& where) {
  std::string name = Text(object, where, "name", kMaxQuotedChars);
  if (name.empty()) throw BadField{Join(where, "name"), "expected a non-empty string"};
  return name;
}

double Number(const nlohmann::json& object, const std::string& where, const std::string& key) {
  const nlohmann::json& value = Field(object, where, key);
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
    throw BadField{Join(where, key), "expected a number >= 0"};
  }
  return value.get<double>();
}

// Keys the worker may leave out: 0 then.
double OptionalNumber(const nlohmann::json& object, const std::string& where,
                      const std::string& key) {
  return object.contains(key) ? Number(object, where, key) : 0;
}

bool Bool(const nlohmann::json& object, const std::string& where, const std::string& key) {
  const nlohmann::json& value = Field(object, where, key);
  if (!value.is_boolean()) throw BadField{Join(where, key), "expected true or false"};
  return value.get<bool>();
}

const nlohmann::json& Array(const nlohmann::json& object, const std::string& where,
                            const std::string& key, size_t max) {
  const nlohmann::json& value = Field(object, where, key);
  if (!value.is_array()) throw BadField{Join(where, key), "expected a list"};
  if (value.size() > max) {
    throw BadField{Join(where, key), "more than " + std::to_string(max) + " entries"};
  }
  return value;
}

std::string At(const std::string& where, const std::string& key, size_t index) {
  return Join(where, key) + "[" + std::to_string(index) + "]";
}

PeerTiming ParseTiming(const nlohmann::json& j, const std::string& where, bool named) {
  PeerTiming t;
  if (named) t.name = Name(j, where);
  const std::string time = Join(where, "time_us");
  const nlohmann::json& times = Field(j, where, "time_us");
  t.time_us = {Number(times, time, "median"), Number(times, time, "p10"),
               Number(times, time, "p90")};
  t.host_us_per_call = Number(j, where, "host_us_per_call");
  t.gbps = OptionalNumber(j, where, "gbps");
  t.max_abs_error = OptionalNumber(j, where, "max_abs_error");
  t.problem = Text(j, where, "problem", kMaxMessageChars);
  return t;
}

PeerResults Parse(const nlohmann::json& doc) {
  PeerResults r;
  const std::string schema = Text(doc, "", "schema", kMaxQuotedChars);
  if (schema != kPeerResultsSchema) {
    throw BadField{"schema",
                   "expected \"" + std::string(kPeerResultsSchema) + "\", got \"" + schema + "\""};
  }
  r.device = Text(doc, "", "device", kMaxQuotedChars);
  r.torch = Text(doc, "", "torch", kMaxQuotedChars);
  r.mode = Text(doc, "", "mode", kMaxQuotedChars);
  const nlohmann::json& peers = Array(doc, "", "peers", kMaxPeers);
  for (size_t i = 0; i < peers.size(); ++i) {
    const std::string where = At("", "peers", i);
    r.peers.push_back({Name(peers[i], where), Bool(peers[i], where, "available"),
                       Text(peers[i], where, "reason", kMaxMessageChars)});
  }
  const nlohmann::json& records = Array(doc, "", "records", kMaxRecords);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string where = At("", "records", i);
    PeerRecord record;
    record.benchmark = Text(records[i], where, "benchmark", kMaxQuotedChars);
    record.case_name = Text(records[i], where, "case", kMaxQuotedChars);
    record.ours = ParseTiming(Field(records[i], where, "ours"), Join(where, "ours"), false);
    const nlohmann::json& timings = Array(records[i], where, "peers", kMaxPeers);
    for (size_t k = 0; k < timings.size(); ++k) {
      record.peers.push_back(ParseTiming(timings[k], At(where, "peers", k), true));
    }
    r.records.push_back(std::move(record));
  }
  const nlohmann::json& problems = Array(doc, "", "problems", kMaxProblems);
  for (size_t i = 0; i < problems.size(); ++i) {
    if (!problems[i].is_string()) throw BadField{At("", "problems", i), "expected a string"};
    r.problems.push_back(OneLine(problems[i].get<std::string>()));
  }
  return r;
}

const char* const kWorkerHint =
    "kbuild and its peer worker (tools/harness/python/peer_worker.py in kbuild's data folder) "
    "disagree: reinstall kbuild, or point KBUILD_HOME at the tree this kbuild came from";

// The case of the harness document a record belongs to, or null.
nlohmann::json* FindCase(nlohmann::json& doc, const PeerRecord& record) {
  if (!doc.contains("cases") || !doc["cases"].is_array()) return nullptr;
  for (auto& c : doc["cases"]) {
    if (c.is_object() && c.value("benchmark", nlohmann::json()) == record.benchmark &&
        c.value("case", nlohmann::json()) == record.case_name) {
      return &c;
    }
  }
  return nullptr;
}

bool HasBaseline(const nlohmann::json& c, const std::string& name) {
  for (const auto& b : ArrayAt(c, "baselines")) {
    if (b.is_object() && b.value("name", nlohmann::json()) == name) return true;
  }
  return false;
}

nlohmann::json TimeJson(const PeerTime& t) {
  return {{"median", t.median}, {"p10", t.p10}, {"p90", t.p90}};
}

// Our op failed its value check in the worker: the case fails, as in the harness.
void FailCase(nlohmann::json& doc, nlohmann::json& c, const std::string& problem) {
  doc["failed"] = static_cast<long long>(IntegerOr(doc, "failed")) + 1;
  c["verdict"] = "fail";
  if (!c.contains("problems") || !c["problems"].is_array()) c["problems"] = nlohmann::json::array();
  c["problems"].push_back(
      "value check of our op in the peer worker (benchmarks/peers.py ours()): " + problem);
}

void MergeRecord(const PeerRecord& record, nlohmann::json& doc, nlohmann::json& c,
                 nlohmann::json& problems) {
  const std::string key = record.benchmark + "/" + record.case_name;
  const PeerTiming& ours = record.ours;
  c["ours_python"] = {{"time_us", TimeJson(ours.time_us)},
                      {"host_us_per_call", ours.host_us_per_call},
                      {"problem", ours.problem}};
  if (ours.problem.starts_with("incorrect")) {
    FailCase(doc, c, ours.problem);
  } else if (!ours.problem.empty()) {
    problems.push_back(key + ": ours (python): " + ours.problem);
  }
  if (!c.contains("baselines") || !c["baselines"].is_array())
    c["baselines"] = nlohmann::json::array();
  for (const PeerTiming& peer : record.peers) {
    if (HasBaseline(c, peer.name)) {
      problems.push_back(key + ": peer '" + peer.name +
                         "' has the name of another baseline of this case; rename it in "
                         "benchmarks/peers.py");
      continue;
    }
    const bool comparable = ours.problem.empty() && peer.problem.empty() &&
                            ours.time_us.median > 0 && peer.time_us.median > 0;
    c["baselines"].push_back(
        {{"name", peer.name},
         {"source", "python"},
         {"time_us", TimeJson(peer.time_us)},
         {"speedup", comparable ? peer.time_us.median / ours.time_us.median : 0.0},
         {"host_us_per_call", peer.host_us_per_call},
         {"gbps", peer.gbps},
         {"max_abs_error", peer.max_abs_error},
         {"problem", peer.problem}});
    if (!peer.problem.empty()) problems.push_back(key + ": " + peer.name + ": " + peer.problem);
  }
}

}  // namespace

Expected<PeerResults> ParsePeerResults(const nlohmann::json& doc) {
  try {
    return Parse(doc);
  } catch (const BadField& bad) {
    return MakeError(ExitCode::kInternal,
                     "the peer results are not a " + std::string(kPeerResultsSchema) +
                         " document: " + OneLine(bad.where) + ": " + bad.what,
                     kWorkerHint);
  }
}

Expected<PeerResults> ReadPeerResults(const FileSystem& fs, const std::filesystem::path& path) {
  auto located = [&path](Error e) {
    if (e.path.empty()) e.path = path.string();
    return e;
  };
  const FileKind kind = fs.KindOf(path);
  if (kind == FileKind::kMissing) {
    return located(MakeError(ExitCode::kInternal, "the peer worker exited 0 but wrote no results",
                             kWorkerHint));
  }
  if (kind != FileKind::kRegular) return NotRegularFileError(path, kind);
  auto text = fs.ReadAtMost(path, kMaxPeerResultsBytes);
  if (!text) return text.error();
  const auto doc = ParseUntrustedJson(*text);
  if (doc.is_discarded()) {
    return located(
        MakeError(ExitCode::kInternal, "the peer results are not valid JSON", kWorkerHint));
  }
  auto parsed = ParsePeerResults(doc);
  if (!parsed) return located(parsed.error());
  return parsed;
}

void MergePeerResults(const PeerResults& results, nlohmann::json* harness_doc) {
  nlohmann::json& doc = *harness_doc;
  // Appended to what is there (the cases the job left out, say).
  nlohmann::json problems = ArrayAt(doc, "peer_problems");
  nlohmann::json peers = nlohmann::json::array();
  for (const auto& p : results.peers) {
    peers.push_back({{"name", p.name}, {"available", p.available}, {"reason", p.reason}});
    if (!p.available) problems.push_back(p.name + ": not available: " + p.reason);
  }
  const nlohmann::json device = doc.value("device", nlohmann::json(""));
  if (!results.device.empty() && device.is_string() && !device.get<std::string>().empty() &&
      device != results.device) {
    problems.push_back("the peer worker ran on " + results.device + ", the benchmark binary on " +
                       OneLine(device.get<std::string>()));
  }
  for (const auto& p : results.problems) problems.push_back(p);
  std::set<std::string> merged;
  for (const PeerRecord& record : results.records) {
    const std::string key = record.benchmark + "/" + record.case_name;
    if (merged.contains(key)) {
      problems.push_back(key + ": the peer worker timed this case twice; the second ignored");
      continue;
    }
    nlohmann::json* c = FindCase(doc, record);
    if (c == nullptr || !IsTimedCase(*c)) {
      problems.push_back(key + ": the peer worker timed a case kbuild did not give it; ignored");
      continue;
    }
    merged.insert(key);
    MergeRecord(record, doc, *c, problems);
  }
  doc["peers"] = peers;
  doc["peer_mode"] = results.mode;
  doc["peer_problems"] = problems;
}

}  // namespace kb
