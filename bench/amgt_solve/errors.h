// Error types shared by the driver's units.
#pragma once

#include <stdexcept>
#include <string>

namespace amgt {

// Bad input detected identically on every rank (sizes, settings hypre rejects): the driver
// reports it and exits 1 without MPI_Abort.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "generic error, error in argument 2, ..." for a hypre error code.
std::string describe_hypre_error(int code);

}  // namespace amgt
