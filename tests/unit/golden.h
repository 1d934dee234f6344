// Golden-file comparison for the unit tests: tests/golden/NAME.txt holds the expected text;
// DUPLEX_UPDATE_GOLDEN=1 rewrites it instead of comparing.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace duplex::test {

inline void check_golden(const std::string& name, const std::string& text) {
  namespace fs = std::filesystem;
  fs::path path = fs::path(DUPLEX_SOURCE_DIR) / "tests" / "golden" / (name + ".txt");
  if (std::getenv("DUPLEX_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    WARN("updated " << path.string());
    return;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("missing " << path.string() << "; run with DUPLEX_UPDATE_GOLDEN=1 to create it");
  REQUIRE(in.good());
  std::string expected((std::istreambuf_iterator<char>(in)), {});
  INFO("golden " << path.string() << " differs; DUPLEX_UPDATE_GOLDEN=1 regenerates it");
  CHECK(text == expected);
}

}  // namespace duplex::test
