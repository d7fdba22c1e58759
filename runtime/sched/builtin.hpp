// Factories of the built-in policies (one file each), registered by registry.cpp. Internal.
#pragma once

#include <tessera/rt/sched.hpp>

#include <memory>

namespace tessera::rt::detail {

std::unique_ptr<Policy> make_eager();
std::unique_ptr<Policy> make_prio();
std::unique_ptr<Policy> make_random();
std::unique_ptr<Policy> make_ws();
std::unique_ptr<Policy> make_lws();
std::unique_ptr<Policy> make_dws();
std::unique_ptr<Policy> make_law();
std::unique_ptr<Policy> make_dm();
std::unique_ptr<Policy> make_dmda();
std::unique_ptr<Policy> make_dmdas();
std::unique_ptr<Policy> make_dmdasd();

}  // namespace tessera::rt::detail
