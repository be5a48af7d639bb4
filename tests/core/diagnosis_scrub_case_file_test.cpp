// Scrubbing a case file keeps it a case file: the scrubbed text loads with
// the real loader to the same computation (op, inputs, args, expectations),
// only the replaced values differ, and every one is gone.
#include <gtest/gtest.h>

#include <string>

#include "casebook/diagnosis.h"
#include "casebook/loader.h"

namespace casebook {
namespace {

ScrubContext machine() {
  ScrubContext ctx;
  ctx.user_name = "zorblax";
  ctx.host_name = "gpu-node-7";
  ctx.home_dir = "/home/zorblax";
  return ctx;
}

// The planted file: secrets inside quoted strings (the old scrub
// redacted to the end of the line and ate the closing quote), nested
// user and host fields, a name learned from a path used as a free word.
const char kPlanted[] =
    "# captured by alice.nguyen on gpu-node-7\n"
    "casebook: 1\n"
    "summary: 'labels of alice.nguyen''s loader'\n"
    "op: torch.cross_entropy\n"
    "args: {ignore_index: -100, reduction: mean}\n"
    "inputs:\n"
    "  input:  {shape: [3, 4], dtype: float32, fill: {normal: {mean: 0, std: "
    "1}}, seed: 7}\n"
    "  target: {dtype: int64, values: [0, 2, 4]}\n"
    "expect:\n"
    "  cpu: {xfail: \"token: t0k3nSecret, seen in /home/alice.nguyen/x.py\"}\n"
    "origin:\n"
    "  first_error: \"Authorization: Bearer eyJplanted was refused\"\n"
    "  cause: api_key=AK99zz and more\n"
    "  data: {id: \"/home/alice.nguyen/shards/07\", user: mwong}\n"
    "  versions: {torch: \"2.11.0\", host: trainbox-12}\n"
    "  source: \"postgres://admin:pw@db.corp.internal:5432/x\"\n"
    "  change: [zorblax@example.org, ether 00:1a:2b:3c:4d:5e]\n"
    "  distinguishing: \"ssh mwong@10.0.0.5 by trainbox-12\"\n";

TEST(ScrubCaseFile, StillLoadsAsTheSameCaseWithEveryPlantedValueGone) {
  const std::string scrubbed = scrub_case_file(kPlanted, machine());
  for (const char* planted :
       {"alice.nguyen", "t0k3nSecret", "eyJplanted", "AK99zz", "mwong",
        "trainbox-12", "db.corp", "zorblax", "example.org", "00:1a:2b",
        "10.0.0.5", "gpu-node-7", "admin:pw"}) {
    EXPECT_EQ(scrubbed.find(planted), std::string::npos)
        << planted << " survived:\n"
        << scrubbed;
  }
  const LoadedCase before = load_case_text(kPlanted, "cases/x/planted.yaml");
  const LoadedCase after = load_case_text(scrubbed, "cases/x/planted.yaml");
  ASSERT_TRUE(before.ok()) << before.errors.front().to_string();
  ASSERT_TRUE(after.ok()) << after.errors.front().to_string() << "\n"
                          << scrubbed;
  const Case& a = *before.value;
  const Case& b = *after.value;
  EXPECT_EQ(b.op, a.op);
  ASSERT_EQ(b.inputs.size(), a.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(b.inputs[i].name, a.inputs[i].name);
    EXPECT_EQ(b.inputs[i].shape, a.inputs[i].shape);
    EXPECT_EQ(b.inputs[i].dtype, a.inputs[i].dtype);
    EXPECT_EQ(b.inputs[i].int_values, a.inputs[i].int_values);
    EXPECT_EQ(b.inputs[i].seed, a.inputs[i].seed);
  }
  EXPECT_EQ(b.args.size(), a.args.size());
  EXPECT_EQ(b.expectation(Backend::kCpu).kind, Expectation::Kind::kXfail);
  EXPECT_EQ(b.origin.entries.size(), a.origin.entries.size());
  // What was replaced, token by token, with the rest of each sentence.
  for (const char* kept :
       {"summary: 'labels of <user>''s loader'",
        "xfail: \"token: <redacted>, seen in <home>/x.py\"",
        "first_error: \"Authorization: Bearer <redacted> was refused\"",
        "cause: api_key=<redacted> and more",
        "data: {id: \"<home>/shards/07\", user: <user>}",
        "versions: {torch: \"2.11.0\", host: <host>}",
        "source: \"postgres://<redacted>@<host>:5432/x\"",
        "change: [<email>, ether <mac>]",
        "distinguishing: \"ssh <user>@<ip> by <host>\"",
        "# captured by <user> on <host>\n",
        "  target: {dtype: int64, values: [0, 2, 4]}\n"}) {
    EXPECT_NE(scrubbed.find(kept), std::string::npos)
        << kept << " missing in:\n"
        << scrubbed;
  }
}

// A new text that a plain scalar cannot hold is quoted; numbers and the
// structure are untouched.
TEST(ScrubCaseFile, RequotesWhereTheNewTextNeedsIt) {
  const std::string text =
      "origin:\n  a: user@10.1.2.3\n  b: [1.5, 10.1.2.3, x]\n  c: |\n"
      "    block /home/bob/x\n    two\n";
  const std::string scrubbed = scrub_case_file(text, machine());
  EXPECT_EQ(scrubbed,
            "origin:\n  a: user@<ip>\n  b: [1.5, <ip>, x]\n  c: |\n"
            "    block <home>/x\n    two\n");
  const std::string colon = scrub_case_file("k: [10.1.2.3:80]\n", machine());
  EXPECT_EQ(colon, "k: [\"<ip>:80\"]\n");
}

TEST(ScrubCaseFile, TextThatIsNotYamlIsScrubbedAsText) {
  EXPECT_EQ(scrub_case_file("a: [unclosed /home/bob/x", machine()),
            "a: [unclosed <home>/x");
}

TEST(ScrubCaseFile, NamesLearnedFromTheFile) {
  ScrubContext ctx = machine();
  learn_names_from_case_file("origin: {data: {user: kim-l}}\n", ctx);
  EXPECT_EQ(scrub("kim-l ran it", ctx), "<user> ran it");
}

}  // namespace
}  // namespace casebook
