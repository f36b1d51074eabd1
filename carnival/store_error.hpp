#pragma once
// Any failure to write or read one of our files (store, SQLite layer, publishing): the message
// names the file and says what is wrong (docs/schema.md lists them).
#include <stdexcept>

namespace ncp2::carnival {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ncp2::carnival
