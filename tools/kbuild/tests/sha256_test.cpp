#include "core/sha256.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

// FIPS 180-4 / NIST example vectors.
TEST(Sha256, MatchesStandardVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalUpdatesEqualOneShot) {
  const std::string text(300, 'x');
  Sha256 h;
  for (size_t i = 0; i < text.size(); i += 7) h.Update(std::string_view(text).substr(i, 7));
  const auto d = h.Finish();
  EXPECT_EQ(ToHex(d.data(), d.size()), Sha256Hex(text));
}

TEST(Sha256, Base64MatchesKernelsDigestFormat) {
  // What kernels' Digest.hash_variant stores for a file holding "hi\n".
  EXPECT_EQ(Sha256Base64("hi\n"), "mOpuTyFvL7S2n/+bOkSELDhobKaF8/VdxIxdP7EQe+Q=");
  const uint8_t two[] = {'a', 'b'};
  EXPECT_EQ(Base64(two, 2), "YWI=");
  EXPECT_EQ(Base64(two, 1), "YQ==");
}

}  // namespace
}  // namespace kb
