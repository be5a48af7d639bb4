// Scrubbing the forms the issue found leaking: token formats with no key
// name, MAC addresses, the host after URL credentials, user@<ip>, names
// learned in one place and replaced in every other, and (key, value) pairs
// whose key says what the value is. Exact outputs: the markers and the rest
// of each sentence.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "casebook/diagnosis.h"
#include "planted_scrub_context.h"

namespace casebook {
namespace {

// The formats of the leaks, each with what must stay around it.
TEST(Scrub, TokenFormatsWithoutAKeyName) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVm "
       "expired",
       "jwt <redacted> expired"},
      {"key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&v=3", "key=<redacted>&v=3"},
      {"https://hooks.slack.com/services/T0000/B0000/XXXXXXXX said ok",
       "https://hooks.slack.com/services/<redacted> said ok"},
      {"bot xoxb-123456789012-AbCdEfGhIjKl ok", "bot <redacted> ok"},
      {"npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "<redacted>"},
      {"stripe sk_live_51HxYzAbCdEfGh, rk_test_51HxYzAbCdEfGh",
       "stripe <redacted>, <redacted>"},
      {"AccountName=x;AccountKey=Zm9v+/Ab==;EndpointSuffix=core.windows.net",
       "AccountName=x;AccountKey=<redacted>;EndpointSuffix=core.windows.net"},
      {"secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
       "secret <redacted>."},
      {"sk-proj-AbC123dEf456GhI789jKl012", "<redacted>"},
  };
  for (const auto& [input, expected] : cases) {
    EXPECT_EQ(scrubbed(input), expected) << input;
  }
}

TEST(Scrub, MacAddressesHostsAfterCredentialsAndUsersAtAddresses) {
  EXPECT_EQ(scrubbed("ether 00:1a:2b:3c:4d:5e and 3C-52-82-4A-1B-7F up"),
            "ether <mac> and <mac> up");
  EXPECT_EQ(scrubbed("postgres://admin:hunter2@db.corp.internal:5432/app"),
            "postgres://<redacted>@<host>:5432/app");
  EXPECT_EQ(
      scrubbed("https://u:p@api.example.com/v1 and https://u:p@[fe80::1]/"),
      "https://<redacted>@<host>/v1 and https://<redacted>@<host>/");
  EXPECT_EQ(scrubbed("http://u:p@localhost:8080/x"),
            "http://<redacted>@localhost:8080/x");
  EXPECT_EQ(scrubbed("ssh bob@10.0.0.5 and root@10.0.0.6"),
            "ssh <user>@<ip> and root@<ip>");
}

TEST(Scrub, ANameLearnedInOnePlaceIsReplacedInEveryOther) {
  // A distinctive name as a free word, and a login (a home folder's) that
  // is no common word; a common word only where it names someone.
  EXPECT_EQ(scrubbed("seen by alice.nguyen in /home/alice.nguyen/run.py"),
            "seen by <user> in <home>/run.py");
  EXPECT_EQ(scrubbed("owner: bob-ml\nbob-ml's job, /data/bob-ml/x"),
            "owner: <user>\n<user>'s job, /data/<user>/x");
  EXPECT_EQ(scrubbed("host: train-07\nthe job on train-07 died"),
            "host: <host>\nthe job on <host> died");
  EXPECT_EQ(scrubbed("/home/carol/x, then carol reran it, /mnt/carol/y"),
            "<home>/x, then <user> reran it, /mnt/<user>/y");
  EXPECT_EQ(scrubbed("/home/mark/x, mark the step, /mnt/mark/y"),
            "<home>/x, mark the step, /mnt/<user>/y");
  // An e-mail gives its local part, not its domain (an organisation's).
  EXPECT_EQ(scrubbed("from zed.k@example.org; zed.k ran github.com/x"),
            "from <email>; <user> ran github.com/x");
  // Learned by the caller (a report learns from all its pieces first).
  ScrubContext ctx = planted_context();
  learn_names("USER=dora.x", ctx);
  EXPECT_EQ(scrub("dora.x was here", ctx), "<user> was here");
}

TEST(ScrubEntry, KeysThatNameAUserOrAHostOrASecret) {
  const ScrubContext ctx = planted_context();
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(scrub_entry("data.user", "alice", ctx),
            Pair("data.user", "<user>"));
  EXPECT_EQ(scrub_entry("versions.host", "gpu-node-7", ctx),
            Pair("versions.host", "<host>"));
  EXPECT_EQ(scrub_entry("owner", "root", ctx), Pair("owner", "root"));
  EXPECT_EQ(scrub_entry("api_token", "a b c", ctx),
            Pair("api_token", "<redacted>"));
  EXPECT_EQ(scrub_entry("data.id", "/home/bob/x", ctx),
            Pair("data.id", "<home>/x"));
  EXPECT_EQ(scrub_entry("note", "user bob asked", ctx),
            Pair("note", "user bob asked"));
}

}  // namespace
}  // namespace casebook
