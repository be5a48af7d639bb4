// The bug report: planted personal data and secrets in every part of the
// input (origin, messages, environment, case file, command) must not survive
// the rendered Markdown, while the op, dtypes and shapes must. Also the
// environment of this host.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

ScrubContext report_context() {
  ScrubContext ctx;
  ctx.user_name = "alice";
  ctx.host_name = "gpu-node-7";
  ctx.home_dir = "/home/alice";
  return ctx;
}

ReportInput planted_report() {
  ReportInput input;
  input.case_id = "cross_entropy/label_out_of_range";
  input.op = "torch.cross_entropy";
  // A name is replaced where it names someone (here user@host), not as a
  // free word (scrub's contract).
  input.summary = "a label of 4 in a 4-class problem, seen by alice@gpu-node-7";
  input.backend = "cuda";
  input.family = Family::kDeviceAssert;
  input.inputs = {{"input", "float32", {3, 4}, {4, 1}, 0},
                  {"target", "int64", {3}, {1}, 0}};
  input.environment = {
      {"casebook.version", "0.1.0"},
      {"TORCH_HOME", "/home/alice/.cache/torch"},
      {"HF_TOKEN", "hf_plantedtokenvalue0001"},
      {"CUDA_VISIBLE_DEVICES", "0"},
  };
  input.first_message =
      "CUDA error: device-side assert triggered\nwhile loading "
      "/home/alice/data/shard-07.pt on gpu-node-7 (token=tok_live_1234)";
  input.consequences = {
      "CUDA error: device-side assert triggered (reported to "
      "alice.smith@example.com)",
      R"(config {"api_key": "AKplantedapikey99", "lr": 0.1})",
  };
  input.case_file_text =
      "casebook: 1\nsummary: a label of 4 in a 4-class problem\nop: "
      "torch.cross_entropy\ninputs:\n  input:  {shape: [3, 4], dtype: "
      "float32}\n  target: {dtype: int64, values: [0, 2, 4]}\norigin:\n  "
      "data: {id: \"/Users/alice/shards/train-07\"}\n  note: "
      "\"Authorization: Bearer eyJplantedbearer\"\n";
  input.reproduce_command =
      "casebook run /home/alice/repo/cases/cross_entropy/"
      "label_out_of_range.yaml --password hunter2-horse";
  input.versions = {{"libtorch", "2.11.0"}, {"cuda", "CUDA 13.0, driver 580"}};
  input.args = {{"reduction", "mean"}, {"ignore_index", "-100"}};
  input.origin = {{"first_error", "CUDA error: device-side assert triggered"},
                  {"revision", "3f2c9e1"},
                  {"data.id", "C:\\Users\\alice\\shards\\train-07"},
                  {"contact", "alice.smith@example.com"},
                  {"password", "hunter2-horse"}};
  return input;
}

TEST(Report, NothingPlantedSurvives) {
  const std::string markdown =
      render_report_markdown(planted_report(), report_context());
  for (const char* planted :
       {"/home/alice", "alice", "Alice", "gpu-node-7", "alice.smith",
        "example.com", "tok_live_1234", "hf_plantedtokenvalue0001",
        "AKplantedapikey99", "eyJplantedbearer", "hunter2", "/Users/",
        "C:\\Users"}) {
    EXPECT_EQ(markdown.find(planted), std::string::npos)
        << planted << " survived in:\n"
        << markdown;
  }
}

TEST(Report, HarmlessPartsAndSectionsSurvive) {
  const char* const kCommand =
      "```sh\ncasebook run <home>/repo/cases/cross_entropy/"
      "label_out_of_range.yaml --password <redacted>\n```";
  const std::string markdown =
      render_report_markdown(planted_report(), report_context());
  for (const char* kept :
       {"# Request for a targeted analysis: `cross_entropy/label_out_of_range`",
        "- case: `cross_entropy/label_out_of_range`\n",
        "## Operation",
        "## Inputs",
        "## Backend",
        "## Versions",
        "## First relevant message",
        "## Arguments",
        "## Origin",
        "## The case file",
        "## How to reproduce",
        "## Environment",
        "Operation: `torch.cross_entropy`",
        "| input | float32 | [3, 4] | [4, 1] | 0 |",
        "| target | int64 | [3] | [1] | 0 |",
        "- backend: cuda\n",
        "`device_assert`",
        "| CUDA_VISIBLE_DEVICES | 0 |",
        "| TORCH_HOME | <home>/.cache/torch |",
        "| HF_TOKEN | <redacted> |",
        "| revision | 3f2c9e1 |",
        "| libtorch | 2.11.0 |",
        "| reduction | mean |",
        "```yaml\ncasebook: 1\n",
        "values: [0, 2, 4]",
        kCommand,
        "possible consequences (not causes)"}) {
    EXPECT_NE(markdown.find(kept), std::string::npos)
        << kept << " missing in:\n"
        << markdown;
  }
}

// The request the seed asks for, in its order: operation, shapes, dtypes
// and strides, backend, versions, first relevant message, args, origin.
TEST(Report, TheRequestIsInTheOrderAMaintainerReadsIt) {
  const std::string markdown =
      render_report_markdown(planted_report(), report_context());
  size_t at = 0;
  for (const char* section :
       {"## Operation", "## Inputs", "## Backend", "## Versions",
        "## First relevant message", "## Arguments", "## Origin",
        "## The case file", "## How to reproduce", "## Environment"}) {
    const size_t found = markdown.find(section, at);
    ASSERT_NE(found, std::string::npos) << section << " out of order in:\n"
                                        << markdown;
    at = found;
  }
}

// The issue's leak: nested origin fields shown raw in the table while the
// case file's block replaced them. Both come from the same pairs now.
TEST(Report, TableAndCaseFileAreScrubbedFromTheSamePairs) {
  ReportInput input = planted_report();
  input.origin = {{"data.user", "mwong"},
                  {"versions.host", "trainbox-12"},
                  {"cause", "seen by alice.nguyen"}};
  input.case_file_text =
      "casebook: 1\nop: torch.sum\ninputs:\n  input: {dtype: float32, "
      "values: [1]}\norigin:\n  data: {user: mwong, id: "
      "\"/home/alice.nguyen/x\"}\n  versions: {host: trainbox-12}\n  cause: "
      "seen by alice.nguyen\n";
  const std::string markdown = render_report_markdown(input, ScrubContext{});
  for (const char* gone : {"mwong", "trainbox-12", "alice.nguyen"}) {
    EXPECT_EQ(markdown.find(gone), std::string::npos) << gone << " survived:\n"
                                                      << markdown;
  }
  for (const char* kept :
       {"| data.user | <user> |", "| versions.host | <host> |",
        "| cause | seen by <user> |", "data: {user: <user>, id: \"<home>/x\"}",
        "versions: {host: <host>}", "cause: seen by <user>"}) {
    EXPECT_NE(markdown.find(kept), std::string::npos)
        << kept << " missing in:\n"
        << markdown;
  }
}

// An expected error is reported with the error the run raised (the CPU's
// own text), not as a bare PASS.
TEST(Report, AnExpectedErrorShowsTheErrorTheRunRaised) {
  ReportInput input = planted_report();
  input.backend = "cpu";
  input.family = Family::kIndexOutOfRange;
  input.verdict = "PASS";
  input.expected_error = true;
  input.first_message = "Target 4 is out of bounds.";
  input.consequences.clear();
  const std::string markdown = render_report_markdown(input, ScrubContext{});
  for (const char* kept :
       {"Verdict: PASS: the run raised the error its case expects "
        "(`index_out_of_range`)",
        "The error the case expects, as this run raised it:\n\n```text\n"
        "Target 4 is out of bounds.\n```",
        "- family: `index_out_of_range`: ",
        "It gives PASS on cpu (`index_out_of_range`), as here."}) {
    EXPECT_NE(markdown.find(kept), std::string::npos)
        << kept << " missing in:\n"
        << markdown;
  }
  EXPECT_EQ(markdown.find("Nothing fails"), std::string::npos) << markdown;
}

// The report says which run it chose, why, and lists the others that
// failed; the fixtures it cannot carry are listed with their hashes, and
// "How to reproduce" runs the file it carries.
TEST(Report, SaysWhatItChoseListsOtherFailuresAndFixtures) {
  ReportInput input = planted_report();
  input.chosen_because =
      std::string(subject_reason_text(SubjectReason::kFailed));
  input.other_failures = {"FAIL  x~dtypes[float64]  cpu  contract: no",
                          "ERROR  x~layouts[transposed]  cpu  invalid_case"};
  input.case_file_name = "label_out_of_range_label_limits_C.yaml";
  input.case_file_note = "written out: a neighbour of its file";
  input.fixtures = {{"input", "cross_entropy/abc.npy",
                     "edd2287212b00ec6cf110df7b53fbdca1d143b738e60235a1d4fe3"
                     "ee608cdc06",
                     208}};
  input.reproduce_command =
      "casebook run label_out_of_range_label_limits_C.yaml --backend cuda";
  const std::string markdown = render_report_markdown(input, ScrubContext{});
  for (const char* kept :
       {"- chosen: the first run that failed (FAIL, ERROR, XPASS or TIMEOUT)",
        "- other runs that failed: 2 (listed below)",
        "## Other runs that failed (2)\n\n- FAIL  x~dtypes[float64]  cpu",
        "`label_out_of_range_label_limits_C.yaml`: written out: a neighbour "
        "of its file.",
        "| input | `fixtures/cross_entropy/abc.npy` | "
        "edd2287212b00ec6cf110df7b53fbdca1d143b738e60235a1d4fe3ee608cdc06 | "
        "208 |",
        "--bundle DIR",
        "With the case file above saved as "
        "`label_out_of_range_label_limits_C.yaml` and its fixtures under "
        "`fixtures/` beside it",
        "casebook run label_out_of_range_label_limits_C.yaml --backend cuda"}) {
    EXPECT_NE(markdown.find(kept), std::string::npos)
        << kept << " missing in:\n"
        << markdown;
  }
}

TEST(Report, LongMessagesAreCutOnlyAfterScrubbing) {
  ReportInput input = planted_report();
  // The address straddles the 4000-byte limit of a first message: cut
  // first, "bob.jones@exa" would no longer look like an address.
  input.first_message = std::string(3990, 'x') + " bob.jones@example.com";
  const std::string markdown = render_report_markdown(input, ScrubContext{});
  EXPECT_EQ(markdown.find("bob.jones"), std::string::npos);
  EXPECT_NE(markdown.find("x <email>"), std::string::npos);

  input.first_message = std::string(9000, 'y');
  const std::string cut = render_report_markdown(input, ScrubContext{});
  EXPECT_EQ(cut.find(std::string(4001, 'y')), std::string::npos);
  EXPECT_NE(cut.find("[5000 more bytes cut]"), std::string::npos);
}

TEST(Report, FencesOutgrowBackticksAndConsequencesAreCapped) {
  ReportInput input = planted_report();
  input.case_file_text = "summary: has ``` inside\n";
  input.consequences.assign(12, "");
  for (size_t i = 0; i < input.consequences.size(); ++i) {
    input.consequences[i] = "later error " + std::to_string(i);
  }
  const std::string markdown = render_report_markdown(input, ScrubContext{});
  EXPECT_NE(markdown.find("````yaml\nsummary: has ``` inside\n````"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("later error 9\n(2 more not shown)"),
            std::string::npos);
  EXPECT_EQ(markdown.find("later error 10"), std::string::npos);
}

TEST(HostEnvironment, KernelMachineAndOsButNeverTheHostName) {
  const auto facts = host_environment();
  std::map<std::string, std::string> by_key(facts.begin(), facts.end());
  utsname names{};
  ASSERT_EQ(uname(&names), 0);
  EXPECT_EQ(by_key["os.kernel"],
            std::string(names.sysname) + " " + names.release);
  EXPECT_EQ(by_key["os.machine"], names.machine);
  EXPECT_FALSE(by_key["casebook.version"].empty());
  EXPECT_FALSE(by_key["casebook.revision"].empty());
  EXPECT_FALSE(by_key["build.compiler"].empty());
  std::ifstream os_release("/etc/os-release");
  if (os_release) {
    std::stringstream text;
    text << os_release.rdbuf();
    EXPECT_EQ(by_key["os.name"], os_release_pretty_name(text.str()));
    EXPECT_NE(by_key["os.name"], "");
  }
  for (const auto& [key, value] : facts) {
    EXPECT_EQ(value.find(names.nodename), std::string::npos) << key;
  }
}

TEST(HostEnvironment, PrettyNameFromOsRelease) {
  EXPECT_EQ(os_release_pretty_name(
                "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
                "(bookworm)\"\nID=debian\n"),
            "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(os_release_pretty_name("PRETTY_NAME=Alpine\n"), "Alpine");
  EXPECT_EQ(os_release_pretty_name("NAME=x\n"), "");
}

}  // namespace
}  // namespace casebook
