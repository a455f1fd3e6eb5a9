#include "core/metadata.h"

#include <gtest/gtest.h>

#include "core/sha256.h"

namespace kb {
namespace {

TEST(Metadata, RendersTheSchemaKernelsLoads) {
  MetadataInput in;
  in.id = "_my_op_cuda_0123abcd";
  in.name = "my-op";
  in.version = 2;
  in.license = "Apache-2.0";
  in.archs = {"9.0a"};
  in.builder_version = "0.1.0";
  in.git = GitProvenance{std::string(40, 'a'), true};
  const VariantFiles files = {{"__init__.py", "hi\n"}, {"metadata.json", "old"}};
  const auto doc = nlohmann::json::parse(RenderMetadataJson(in, files));
  EXPECT_EQ(doc, nlohmann::json::parse(R"({
    "id": "_my_op_cuda_0123abcd", "name": "my-op", "version": 2, "license": "Apache-2.0",
    "python-depends": [],
    "backend": {"type": "cuda", "archs": ["9.0a"]},
    "digest": {"algorithm": "sha256",
               "files": {"__init__.py": "mOpuTyFvL7S2n/+bOkSELDhobKaF8/VdxIxdP7EQe+Q="}},
    "provenance": {"kernel-builder": {"version": "0.1.0"},
                   "kernel": {"commit": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "dirty": true}}
  })"));
}

// A Latin-1 file name in the variant is written as U+FFFD, not thrown on by the JSON dump.
TEST(Metadata, InvalidUtf8FileNameIsReplacedNotThrown) {
  MetadataInput in;
  in.name = "my-op";
  const auto doc = nlohmann::json::parse(RenderMetadataJson(in, {{"caf\xe9.py", "x"}}));
  EXPECT_TRUE(doc["digest"]["files"].contains("caf\xef\xbf\xbd.py"));
}

TEST(Metadata, DigestSkipsMetadataAndSortsPaths) {
  const auto digest = VariantDigest({{"z.py", "z"}, {"a/b.py", "b"}, {"metadata.json", "x"}});
  ASSERT_EQ(digest["files"].size(), 2u);
  EXPECT_EQ(digest["files"].begin().key(), "a/b.py");
  EXPECT_EQ(digest["files"]["z.py"], Sha256Base64("z"));
}

TEST(Metadata, GitProvenanceFromRevParseAndStatus) {
  FakeProcessRunner runner([](const std::vector<std::string>& argv, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 0;
    if (argv[3] == "rev-parse") r.output = std::string(40, 'b') + "\n";
    if (argv[3] == "status") r.output = " M torch-ext/torch_binding.cpp\n";
    return r;
  });
  auto git = ReadGitProvenance(runner, "/p");
  ASSERT_TRUE(git.has_value());
  EXPECT_EQ(git->commit, std::string(40, 'b'));
  EXPECT_TRUE(git->dirty);

  FakeProcessRunner no_git([](const std::vector<std::string>&, const RunOptions&) {
    ProcessResult r;
    r.exit_code = 128;
    r.output = "fatal: not a git repository\n";
    return r;
  });
  EXPECT_FALSE(ReadGitProvenance(no_git, "/p").has_value());
}

}  // namespace
}  // namespace kb
