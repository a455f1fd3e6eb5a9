// SHA-256 (FIPS 180-4), self-contained so kbuild needs no crypto library:
// used for the op namespace hash and the metadata.json file digest.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kb {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  std::array<uint8_t, 32> Finish();  // call once

 private:
  void Block(const uint8_t* p);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string Sha256Hex(std::string_view data);
// Standard base64 (with '=' padding) of the raw digest, as kernels' metadata digests use.
std::string Sha256Base64(std::string_view data);
std::string ToHex(const uint8_t* bytes, size_t n);
std::string Base64(const uint8_t* bytes, size_t n);

}  // namespace kb
