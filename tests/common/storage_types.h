// The storage precisions every typed test runs through (TYPED_TEST_SUITE(..., StorageTypes)).
#pragma once

#include "common/half.h"

#include <gtest/gtest.h>

namespace amgt::test {

using StorageTypes = ::testing::Types<double, float, half_t>;

} // namespace amgt::test
