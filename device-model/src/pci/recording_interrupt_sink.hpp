// InterruptSink for unit tests: records every raised vector in order.
#pragma once

#include <algorithm>
#include <vector>

#include "pci/function.hpp"

namespace ornic {

class RecordingInterruptSink : public InterruptSink {
public:
  void raise(unsigned vector) override { raised_.push_back(vector); }

  const std::vector<unsigned>& raised() const { return raised_; }
  size_t count(unsigned vector) const {
    return static_cast<size_t>(std::count(raised_.begin(), raised_.end(), vector));
  }
  void clear() { raised_.clear(); }

private:
  std::vector<unsigned> raised_;
};

} // namespace ornic
