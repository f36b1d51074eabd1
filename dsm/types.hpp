#pragma once
// The DSM layer's names for the protocol core's words (lrc/types.hpp, defined there once).
#include "emulator/ids.hpp"
#include "lrc/types.hpp"

namespace ncp2::dsm {

using emu::NodeId;
using lrc::BarrierId;
using lrc::kMaxBarriers;
using lrc::kMaxLocks;
using lrc::LockId;
using lrc::Operation;
using lrc::PageId;
using lrc::raw;
using lrc::to_string;
using lrc::VectorTime;

// Message purposes on the network (emu::Message::purpose): the protocol's message kinds.
using Purpose = lrc::MessageKind;
using lrc::kBarrierArrival;
using lrc::kBarrierRelease;
using lrc::kDiffReply;
using lrc::kDiffRequest;
using lrc::kLockForward;
using lrc::kLockGrant;
using lrc::kLockRequest;
using lrc::kPageReply;
using lrc::kPageRequest;
inline constexpr std::uint16_t kPurposeEnd = lrc::kMessageKindEnd;
inline std::string_view purpose_name(std::uint16_t purpose) { return lrc::message_kind_name(purpose); }

// A program-level error (misuse of the DSM API): named node, object and reason. The core's.
using DsmError = lrc::ProtocolError;

}  // namespace ncp2::dsm
