/// @file tessera.hpp
/// Umbrella header: everything public in Tessera.
#pragma once

#include <tessera/error.hpp>
#include <tessera/fft/fft2d.hpp>
#include <tessera/la.hpp>
#include <tessera/rt/access.hpp>
#include <tessera/rt/codelet.hpp>
#include <tessera/rt/filter.hpp>
#include <tessera/rt/handle.hpp>
#include <tessera/rt/interfaces.hpp>
#include <tessera/rt/runtime.hpp>
#include <tessera/rt/sched.hpp>
#include <tessera/rt/span.hpp>
#include <tessera/rt/task.hpp>
