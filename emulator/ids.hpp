#pragma once
#include <cstdint>
#include <string>

namespace ncp2::emu {

// Strong id of a node of the emulated cluster.
enum class NodeId : std::uint16_t {};
constexpr int index(NodeId n) { return static_cast<int>(n); }
constexpr NodeId node_id(int i) { return NodeId{static_cast<std::uint16_t>(i)}; }

// Which processor of a node does a piece of work.
enum class Resource : std::uint8_t { PP, CP };

}  // namespace ncp2::emu
