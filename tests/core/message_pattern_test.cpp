// `message:` patterns (model/message_pattern.h): RE2, linear time, a bounded
// subject. Each input here hung or crashed the runner with std::regex.
#include "casebook/message_pattern.h"

#include <gtest/gtest.h>

#include <string>

#include "repeated_text.h"

namespace casebook {
namespace {

using testing_support::repeated;

TEST(MessagePattern, AlternationUnderAStarOnALongMessageEnds) {
  // std::regex backtracked through 2^40 paths: the run hung, SIGTERM
  // ignored.
  const std::string message =
      "shape '[" + repeated("1, ", 40) + "1]' is invalid for input of size 2";
  EXPECT_FALSE(message_matches("((1, )|(1, ))*Q", message));
  EXPECT_TRUE(message_matches("((1, )|(1, ))*1\\]", message));
}

TEST(MessagePattern, AStarOverAMegabyteNeedsNoStack) {
  // std::regex recursed once per repetition: exit 139 on a long message.
  const std::string message = repeated("1, ", 300000);  // 900 kB
  EXPECT_FALSE(message_matches("(1, )*Q", message));
  EXPECT_TRUE(message_matches("^(1, )*$", message));
}

TEST(MessagePattern, OnlyTheFirstMebibyteIsSearched) {
  std::string message = repeated("x", kMessageMatchBytes);
  message += "Target 4";
  EXPECT_FALSE(message_matches("Target 4", message));
  EXPECT_TRUE(message_matches("Target 4", "Target 4 is out of bounds."));
}

TEST(MessagePattern, WhatRe2CannotMatchInLinearTimeIsRefusedByName) {
  EXPECT_EQ(message_pattern_problem("Target [0-9]+ is out of bounds"),
            std::nullopt);
  EXPECT_NE(message_pattern_problem("(a)\\1"), std::nullopt);  // backreference
  EXPECT_NE(message_pattern_problem("Target(?= 4)"),
            std::nullopt);  // look-ahead
  EXPECT_NE(message_pattern_problem("(a"), std::nullopt);
  EXPECT_FALSE(message_matches("(a", "(a"));
}

}  // namespace
}  // namespace casebook
