// kbuild.toml's [tune] table: parsing (every rejection with its exact
// message), variant ids and flags, and the grid, random and evolve
// generators (order, limits, determinism, validity, no repeats).
#include "core/tune_space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace kb {
namespace {

constexpr const char* kValid = R"([tune]
constraints = ["BLOCK_THREADS * VECS <= 1024", "ROWS == 1 || BLOCK_THREADS <= 256"]
max-spill-bytes = 16
[tune.params]
VECS = [1, 2, 4, 8]
BLOCK_THREADS = [128, 256, 512]
ROWS = [1, 2, 4]
)";

TuneSpace Valid() {
  auto space = ParseTuneSpace(kValid, "kbuild.toml");
  EXPECT_TRUE(space.ok()) << (space.ok() ? "" : space.error().Located());
  return space.ok() ? std::move(*space) : TuneSpace{};
}

void ExpectError(const std::string& text, const std::string& located, const std::string& hint) {
  auto space = ParseTuneSpace(text, "kbuild.toml");
  ASSERT_FALSE(space.ok()) << text;
  EXPECT_EQ(space.error().code, ExitCode::kUsage);
  EXPECT_EQ(space.error().Located(), located) << text;
  EXPECT_EQ(space.error().hint, hint) << text;
}

// A [tune.params] table holding `params`, then `rest`.
std::string WithParams(const std::string& params, const std::string& rest = "") {
  return "[tune]\n" + rest + "[tune.params]\n" + params;
}

TuneVariant Variant(std::vector<std::pair<std::string, std::string>> values) {
  TuneVariant v{std::move(values), ""};
  v.id = VariantId(v);
  return v;
}

std::set<std::string> Ids(const std::vector<TuneVariant>& variants) {
  std::set<std::string> ids;
  for (const auto& v : variants) ids.insert(v.id);
  return ids;
}

TEST(TuneSpace, ValidSpaceKeepsTheFileOrder) {
  const TuneSpace space = Valid();
  ASSERT_EQ(space.params.size(), 3u);
  EXPECT_EQ(space.params[0].name, "VECS");
  EXPECT_EQ(space.params[0].values, (std::vector<std::string>{"1", "2", "4", "8"}));
  EXPECT_EQ(space.params[1].name, "BLOCK_THREADS");
  EXPECT_EQ(space.params[2].name, "ROWS");
  ASSERT_EQ(space.constraints.size(), 2u);
  EXPECT_EQ(space.constraints[1].text, "ROWS == 1 || BLOCK_THREADS <= 256");
  EXPECT_EQ(space.max_spill_bytes, 16);
  EXPECT_EQ(space.GridSize(), 36u);
}

TEST(TuneSpace, DefaultsAndIdentifierValues) {
  auto space = ParseTuneSpace(WithParams("LAYOUT = [\"row_major\", \"__half\"]\nN = [0x10, -1]\n"),
                              "kbuild.toml");
  ASSERT_TRUE(space.ok()) << space.error().Located();
  EXPECT_EQ(space->max_spill_bytes, 0);
  EXPECT_TRUE(space->constraints.empty());
  EXPECT_EQ(space->params[0].values, (std::vector<std::string>{"row_major", "__half"}));
  EXPECT_EQ(space->params[1].values, (std::vector<std::string>{"16", "-1"}));
}

TEST(TuneSpace, ReadsThroughTheFileSystem) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.Write("proj/kbuild.toml", kValid).ok());
  auto space = ReadTuneSpace(fs, "proj");
  ASSERT_TRUE(space.ok()) << space.error().Located();
  EXPECT_EQ(space->file, std::filesystem::path("proj/kbuild.toml"));

  auto missing = ReadTuneSpace(fs, ".");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ExitCode::kUsage);
  EXPECT_EQ(missing.error().Located(), "kbuild.toml: no kbuild.toml in this project directory");
  EXPECT_EQ(missing.error().hint,
            "create it with a [tune] table: [tune.params] with BLOCK_THREADS = [128, 256, 512] "
            "(the macros to search and their values)");

  ASSERT_TRUE(fs.Write("big/kbuild.toml", std::string(kMaxConfigBytes + 1, '#')).ok());
  auto big = ReadTuneSpace(fs, "big");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().path, "big/kbuild.toml");

  fs.PlantSpecialFile("fifo/kbuild.toml");
  EXPECT_FALSE(ReadTuneSpace(fs, "fifo").ok());
}

TEST(TuneSpace, MissingTablesSayWhatToAdd) {
  ExpectError("", "kbuild.toml: no [tune] table",
              "add [tune.params] with BLOCK_THREADS = [128, 256, 512]");
  ExpectError("[tune]\nconstraints = []\n", "kbuild.toml:1:1: missing [tune.params]",
              "add [tune.params] with BLOCK_THREADS = [128, 256, 512]");
  ExpectError("[tune.params]\n", "kbuild.toml:1:1: [tune.params] declares no parameters",
              "add one, e.g. BLOCK_THREADS = [128, 256]");
  ExpectError(
      "[tune\n",
      "kbuild.toml:1:6: invalid TOML: Error while parsing table header: expected ']', saw '\\n'",
      "fix the TOML syntax at this spot (see https://toml.io)");
}

TEST(TuneSpace, UnknownKeysAndWrongTypes) {
  ExpectError("[tnue]\n", "kbuild.toml:1:2: unknown key 'tnue' at the top level",
              "did you mean 'tune'?");
  ExpectError(WithParams("A = [1]\n", "constraint = []\n"),
              "kbuild.toml:2:1: unknown key 'constraint' in [tune]", "did you mean 'constraints'?");
  ExpectError(WithParams("A = [1]\n", "constraints = \"A > 0\"\n"),
              "kbuild.toml:2:15: 'constraints' must be an array of strings, found string", "");
  ExpectError(WithParams("A = [1]\n", "max-spill-bytes = \"0\"\n"),
              "kbuild.toml:2:19: 'max-spill-bytes' must be an integer, found string", "");
  ExpectError(WithParams("A = [1]\n", "max-spill-bytes = -1\n"),
              "kbuild.toml:2:19: 'max-spill-bytes' must be between 0 and 2147483647, found -1", "");
  ExpectError("[tune]\nparams = 3\n", "kbuild.toml:2:10: 'params' must be a table, found integer",
              "");
}

TEST(TuneSpace, FiltersAreReadAndChecked) {
  auto space = ParseTuneSpace(WithParams("A = [1]\n",
                                         "bench-filter = \"^gemm/(4096|1000)x \"\n"
                                         "test-filter = \"Gemm.*:RowPlan.*-Gemm.Huge*\"\n"),
                              "kbuild.toml");
  ASSERT_TRUE(space.ok()) << space.error().Located();
  EXPECT_EQ(space->bench_filter, "^gemm/(4096|1000)x ");
  EXPECT_EQ(space->test_filter, "Gemm.*:RowPlan.*-Gemm.Huge*");
  EXPECT_EQ(Valid().bench_filter, "") << "absent: every case";
  EXPECT_EQ(Valid().test_filter, "") << "absent: no tests before the benchmark";

  ExpectError(WithParams("A = [1]\n", "bench-filter = 3\n"),
              "kbuild.toml:2:16: 'bench-filter' must be a string (a regular expression), found "
              "integer",
              "");
  ExpectError(WithParams("A = [1]\n", "test-filters = \"A.*\"\n"),
              "kbuild.toml:2:1: unknown key 'test-filters' in [tune]",
              "did you mean 'test-filter'?");
  ExpectError(WithParams("A = [1]\n", "bench-filter = \"\"\n"),
              "kbuild.toml:2:16: 'bench-filter' is empty",
              "leave the key out to use every case, or give one, e.g. \"^gemm/4096x\"");
  auto bad_regex =
      ParseTuneSpace(WithParams("A = [1]\n", "bench-filter = \"(4096\"\n"), "kbuild.toml");
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_TRUE(bad_regex.error().Located().starts_with(
      "kbuild.toml:2:16: 'bench-filter' is not a valid regular expression: "))
      << bad_regex.error().Located();
  // std::regex compiles by recursion: 100,000 nested groups overflowed the stack.
  const std::string deep = std::string(100000, '(') + "a" + std::string(100000, ')');
  const std::string too_deep = std::string(17, '(') + "a" + std::string(17, ')');
  for (const std::string& pattern : {deep, too_deep, std::string(1001, 'a')}) {
    ExpectError(WithParams("A = [1]\n", "bench-filter = \"" + pattern + "\"\n"),
                "kbuild.toml:2:16: 'bench-filter' is longer than 1000 characters or nests groups "
                "deeper than 16",
                "name the cases to rank on, e.g. \"^rms_norm/(2048|32768)x4096 \"");
  }
  // 16 groups, a '(' in a class and an escaped one ("\\\\(" in TOML): accepted.
  const std::string nested = std::string(16, '(') + "a[(]\\(" + std::string(16, ')');
  auto accepted =
      ParseTuneSpace(WithParams("A = [1]\n", "bench-filter = \"" + std::string(16, '(') +
                                                 "a[(]\\\\(" + std::string(16, ')') + "\"\n"),
                     "kbuild.toml");
  ASSERT_TRUE(accepted.ok()) << accepted.error().Located();
  EXPECT_EQ(accepted->bench_filter, nested);
  ExpectError(WithParams("A = [1]\n", "test-filter = \"RmsNorm.* RowPlan.*\"\n"),
              "kbuild.toml:2:15: 'test-filter' holds a space or control character",
              "a GoogleTest pattern has none: 'Suite.Test' names, '*' and '?', joined by ':', "
              "exclusions after '-', e.g. \"RmsNorm.*:RowPlan.*-RmsNorm.Huge*\"");
}

TEST(TuneSpace, ParameterNamesAreMacroNames) {
  ExpectError(WithParams("BLOCK-THREADS = [1]\n"),
              "kbuild.toml:3:1: invalid parameter name 'BLOCK-THREADS' in [tune.params]: use a C "
              "identifier (letters, digits and '_', not starting with a digit) of at most 64 "
              "characters",
              "parameters become macros (-DNAME=VALUE), e.g. BLOCK_THREADS");
  ExpectError(WithParams("2D = [1]\n"),
              "kbuild.toml:3:1: invalid parameter name '2D' in [tune.params]: use a C identifier "
              "(letters, digits and '_', not starting with a digit) of at most 64 characters",
              "parameters become macros (-DNAME=VALUE), e.g. BLOCK_THREADS");
  // What kbuild build --define refuses, kbuild.toml refuses at its line.
  ExpectError(WithParams(std::string(65, 'N') + " = [1]\n"),
              "kbuild.toml:3:1: invalid parameter name '" + std::string(65, 'N') +
                  "' in [tune.params]: use a C identifier (letters, digits and '_', not starting "
                  "with a digit) of at most 64 characters",
              "parameters become macros (-DNAME=VALUE), e.g. BLOCK_THREADS");
  ExpectError(WithParams("__X = [1]\n"),
              "kbuild.toml:3:1: parameter name '__X' is reserved: names starting with '__' belong "
              "to the compiler",
              "rename it");
  ExpectError(WithParams("KBUILD_X = [1]\n"),
              "kbuild.toml:3:1: parameter name 'KBUILD_X' is reserved: names starting with "
              "'KBUILD_' belong to kbuild",
              "rename it");
}

TEST(TuneSpace, ParameterValuesAreCheckedOneByOne) {
  ExpectError(WithParams("A = 5\n"),
              "kbuild.toml:3:5: 'tune.params.A' must be an array of integers or identifiers, found "
              "integer",
              "e.g. A = [128, 256]");
  ExpectError(WithParams("A = []\n"),
              "kbuild.toml:3:5: 'tune.params.A' has 0 values, it needs 1 to 64",
              "e.g. A = [128, 256]");
  std::string many = "A = [0";
  for (int i = 1; i <= 64; ++i) many += ", " + std::to_string(i);
  ExpectError(WithParams(many + "]\n"),
              "kbuild.toml:3:5: 'tune.params.A' has 65 values, it needs 1 to 64",
              "e.g. A = [128, 256]");
  ExpectError(WithParams("A = [1, 2.5]\n"),
              "kbuild.toml:3:9: tune.params.A[1]: expected an integer or an identifier, found "
              "floating-point",
              "");
  ExpectError(WithParams("A = [\"128\"]\n"),
              "kbuild.toml:3:6: tune.params.A[0]: '128' is not an identifier",
              "write integers without quotes, e.g. 128");
  ExpectError(WithParams("A = [\"row-major\"]\n"),
              "kbuild.toml:3:6: tune.params.A[0]: 'row-major' is not an identifier",
              "identifiers are C names: letters, digits and '_', not starting with a digit");
  ExpectError(WithParams("A = [16, 2, 0x10]\n"),
              "kbuild.toml:3:13: tune.params.A[2]: duplicate value 16", "list each value once");
  ExpectError(WithParams("A = [\"" + std::string(80, 'V') + "\"]\n"),
              "kbuild.toml:3:6: tune.params.A[0]: '" + std::string(80, 'V') +
                  "' is longer than 64 characters",
              "a variant passes it as -DA=VALUE, as kbuild build --define does");
  ExpectError(WithParams("A = [1, \"x\"]\n"),
              "kbuild.toml:3:9: tune.params.A[1]: mixes integers and identifiers",
              "give each parameter values of one kind");
}

TEST(TuneSpace, SpaceSizeIsBounded) {
  std::string params;
  for (int i = 0; i < 17; ++i) params += "P" + std::to_string(i) + " = [1]\n";
  ExpectError(WithParams(params),
              "kbuild.toml:2:1: [tune.params] declares 17 parameters, at most 16",
              "tune fewer parameters at a time");
  std::string values = "[0";
  for (int i = 1; i < 32; ++i) values += ", " + std::to_string(i);
  values += "]\n";
  ExpectError(WithParams("A = " + values + "B = " + values + "C = " + values + "D = " + values),
              "kbuild.toml:2:1: the search space has 1048576 points, at most 1000000",
              "remove values or parameters (constraints filter points one by one, so they do not "
              "shrink this count)");
}

TEST(TuneSpace, ConstraintErrorsNameTheEntryAndColumn) {
  ExpectError(WithParams("VECS = [1]\n", "constraints = [\"VECS > 0\", \"BLOCK * VEC <= 4\"]\n"),
              "kbuild.toml:2:29: tune.constraints[1]: unknown parameter 'BLOCK' at column 1",
              "valid: VECS");
  ExpectError(WithParams("VECS = [1]\n", "constraints = [\"VECS * VEC <= 4096\"]\n"),
              "kbuild.toml:2:24: tune.constraints[0]: unknown parameter 'VEC' at column 8",
              "did you mean 'VECS'?");
  // With escapes the file column is unknown: the error points at the string.
  ExpectError(WithParams("VECS = [1]\n", "constraints = [\"VECS \\u003e 0 && VEC\"]\n"),
              "kbuild.toml:2:16: tune.constraints[0]: unknown parameter 'VEC' at column 13",
              "did you mean 'VECS'?");
  ExpectError(WithParams("VECS = [1]\n", "constraints = [\"VECS > 0\", 3]\n"),
              "kbuild.toml:2:28: tune.constraints[1]: expected a string, found integer",
              "quote each constraint, e.g. \"BLOCK_THREADS * VECS <= 4096\"");
  std::string many = "constraints = [\"1\"";
  for (int i = 0; i < 64; ++i) many += ", \"1\"";
  ExpectError(WithParams("VECS = [1]\n", many + "]\n"),
              "kbuild.toml:2:15: 'tune.constraints' has 65 entries, at most 64",
              "combine conditions with &&");
}

TEST(TuneSpace, SatisfiesChecksMembershipAndConstraints) {
  const TuneSpace space = Valid();
  EXPECT_TRUE(Satisfies(space, Variant({{"VECS", "4"}, {"BLOCK_THREADS", "256"}, {"ROWS", "2"}})));
  EXPECT_FALSE(Satisfies(space, Variant({{"VECS", "8"}, {"BLOCK_THREADS", "256"}, {"ROWS", "1"}})));
  EXPECT_FALSE(Satisfies(space, Variant({{"VECS", "1"}, {"BLOCK_THREADS", "512"}, {"ROWS", "2"}})));
  // Not points of this space: a value it does not list, wrong order, missing parameter.
  EXPECT_FALSE(Satisfies(space, Variant({{"VECS", "3"}, {"BLOCK_THREADS", "256"}, {"ROWS", "1"}})));
  EXPECT_FALSE(Satisfies(space, Variant({{"BLOCK_THREADS", "256"}, {"VECS", "1"}, {"ROWS", "1"}})));
  EXPECT_FALSE(Satisfies(space, Variant({{"VECS", "1"}, {"BLOCK_THREADS", "256"}})));
}

TEST(TuneSpace, IdsAreStableAndDistinct) {
  const TuneVariant v = Variant({{"VECS", "4"}, {"BLOCK_THREADS", "256"}});
  // Pinned: ids name result folders across runs and kbuild versions.
  EXPECT_EQ(v.id, "v-65d3f902c8d6b3d8");
  EXPECT_EQ(VariantId(v), VariantId(Variant({{"VECS", "4"}, {"BLOCK_THREADS", "256"}})));
  EXPECT_NE(v.id, VariantId(Variant({{"VECS", "256"}, {"BLOCK_THREADS", "4"}})));
  EXPECT_NE(v.id, VariantId(Variant({{"VEC", "S4"}, {"BLOCK_THREADS", "256"}})));
  const auto all = GridVariants(TuneSpace{{}, Valid().params, {}, 0}, 100);
  EXPECT_EQ(all.size(), 36u);
  EXPECT_EQ(Ids(all).size(), 36u);
}

TEST(TuneSpace, DefineFlagsFollowTheVariantOrder) {
  EXPECT_EQ(DefineFlags(Variant({{"VECS", "4"}, {"LAYOUT", "row_major"}})),
            (std::vector<std::string>{"-DVECS=4", "-DLAYOUT=row_major"}));
}

TEST(TuneSpace, GridIsInOrderFilteredAndLimited) {
  auto space = ParseTuneSpace(
      WithParams("A = [1, 2, 3]\nB = [\"x\", \"y\"]\n", "constraints = [\"A != 2\"]\n"),
      "kbuild.toml");
  ASSERT_TRUE(space.ok()) << space.error().Located();
  std::vector<std::string> seen;
  for (const auto& v : GridVariants(*space, 100)) {
    seen.push_back(v.values[0].second + v.values[1].second);
    EXPECT_EQ(v.id, VariantId(v));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"1x", "1y", "3x", "3y"}));
  EXPECT_EQ(GridVariants(*space, 3).size(), 3u);
  EXPECT_TRUE(GridVariants(*space, 0).empty());
  EXPECT_EQ(GridVariants(Valid(), 1000).size(), 23u);
}

TEST(TuneSpace, RandomIsSeededValidAndNew) {
  const TuneSpace space = Valid();
  const auto a = RandomVariants(space, 10, 7, {});
  EXPECT_EQ(a.size(), 10u);
  EXPECT_EQ(Ids(a).size(), 10u);
  for (const auto& v : a) EXPECT_TRUE(Satisfies(space, v)) << v.id;
  const auto b = RandomVariants(space, 10, 7, {});
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
  EXPECT_NE(Ids(a), Ids(RandomVariants(space, 10, 8, {})));
  // Excluded ids never come back; asking for more than is left gives the rest.
  const auto rest = RandomVariants(space, 100, 7, Ids(a));
  EXPECT_EQ(rest.size(), 13u);
  for (const auto& v : rest) EXPECT_FALSE(Ids(a).contains(v.id));
  std::set<std::string> all = Ids(a);
  all.merge(Ids(rest));
  EXPECT_EQ(all, Ids(GridVariants(space, 1000)));
  EXPECT_TRUE(RandomVariants(space, 5, 1, all).empty());
}

// How many parameters differ, and whether each moved to an adjacent value.
int Steps(const TuneSpace& space, const TuneVariant& from, const TuneVariant& to) {
  int changed = 0;
  for (size_t i = 0; i < space.params.size(); ++i) {
    const auto& values = space.params[i].values;
    const auto a = std::find(values.begin(), values.end(), from.values[i].second) - values.begin();
    const auto b = std::find(values.begin(), values.end(), to.values[i].second) - values.begin();
    if (a == b) continue;
    if (a - b != 1 && b - a != 1) return -1;
    ++changed;
  }
  return changed;
}

TEST(TuneSpace, EvolveStaysNearValidAndNew) {
  const TuneSpace space = Valid();
  const TuneVariant best = Variant({{"VECS", "2"}, {"BLOCK_THREADS", "256"}, {"ROWS", "2"}});
  const std::set<std::string> seen = {best.id};
  const auto children = EvolveVariants(space, {best}, 5, 3, seen);
  ASSERT_EQ(children.size(), 5u);
  EXPECT_EQ(Ids(children).size(), 5u);
  for (const auto& c : children) {
    EXPECT_TRUE(Satisfies(space, c));
    EXPECT_FALSE(seen.contains(c.id));
    const int steps = Steps(space, best, c);
    EXPECT_TRUE(steps == 1 || steps == 2) << c.id;
  }
  EXPECT_EQ(Steps(space, best, children.front()), 1);  // one-parameter moves first
  const auto again = EvolveVariants(space, {best}, 5, 3, seen);
  for (size_t i = 0; i < children.size(); ++i) EXPECT_EQ(children[i].id, again[i].id);
}

TEST(TuneSpace, EvolveFallsBackToRandomWhenTheNeighbourhoodIsSpent) {
  auto space = ParseTuneSpace(WithParams("A = [1, 2, 3, 4, 5]\n"), "kbuild.toml");
  ASSERT_TRUE(space.ok());
  const TuneVariant best = Variant({{"A", "3"}});
  const TuneVariant stale = Variant({{"B", "3"}});  // an older space's parent is skipped
  const auto children = EvolveVariants(*space, {stale, best}, 10, 1, {best.id});
  ASSERT_EQ(children.size(), 4u);
  EXPECT_EQ(std::set<std::string>({children[0].values[0].second, children[1].values[0].second}),
            (std::set<std::string>{"2", "4"}));
  EXPECT_EQ(Ids(children).size(), 4u);
  EXPECT_FALSE(Ids(children).contains(best.id));
}

TEST(TuneSpace, RepeatMoveStepsAgainTheSameWayOrNotAtAll) {
  auto space = ParseTuneSpace(WithParams("LANES = [1, 4, 16, 32]\nVEC = [1, 4, 8]\n",
                                         "constraints = [\"LANES * VEC <= 128\"]\n"),
                              "kbuild.toml");
  ASSERT_TRUE(space.ok()) << space.error().Located();
  const auto point = [](const char* lanes, const char* vec) {
    return Variant({{"LANES", lanes}, {"VEC", vec}});
  };
  const auto again = [&](const TuneVariant& from, const TuneVariant& to) {
    const auto v = RepeatMove(*space, from, to, {});
    return v ? v->values[0].second + "," + v->values[1].second : std::string("none");
  };
  EXPECT_EQ(again(point("1", "1"), point("4", "1")), "16,1");        // one place up
  EXPECT_EQ(again(point("1", "1"), point("4", "4")), "16,8");        // both, diagonally
  EXPECT_EQ(again(point("4", "1"), point("16", "4")), "none");       // 32 x 8 breaks the constraint
  EXPECT_EQ(again(point("32", "4"), point("16", "4")), "4,4");       // down too
  EXPECT_EQ(again(point("1", "1"), point("16", "1")), "none");       // two places: off the list
  EXPECT_EQ(again(point("4", "1"), point("1", "1")), "none");        // below the first value
  EXPECT_EQ(again(point("4", "1"), point("4", "1")), "none");        // nothing moved
  EXPECT_EQ(again(Variant({{"B", "1"}}), point("4", "1")), "none");  // not a point
  EXPECT_FALSE(RepeatMove(*space, point("1", "1"), point("4", "1"), {point("16", "1").id}))
      << "an excluded point is not proposed";
}

}  // namespace
}  // namespace kb
