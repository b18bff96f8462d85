// Sanity check of what a PciFunctionModel declares (BARs and MSI-X placement), done
// once at startup so a model bug is a clear error message instead of a broken device.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "pci/function.hpp"

namespace ornic {

// nullopt if valid, else a description of the first problem found.
std::optional<std::string> check_function_layout(const std::array<BarDescriptor, 6>& bars,
                                                 const MsixLayout& msix);

} // namespace ornic
