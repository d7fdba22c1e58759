// A fresh directory per test (models, logs), removed with everything in it afterwards.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

namespace tessera::test {

struct TempDir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("tessera-test-" + std::to_string(::getpid()) +
                                                  "-" + std::to_string(std::random_device{}()));
    TempDir() { std::filesystem::create_directories(path); }
    ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace tessera::test
