// Scrubbing: home folders, user and host names, e-mails and secrets in every
// form; harmless text kept; truncation only after scrubbing.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <array>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

ScrubContext planted_context() {
  ScrubContext ctx;
  ctx.user_name = "alice";
  ctx.host_name = "gpu-node-7.example.org";
  ctx.home_dir = "/srv/users/alice";
  return ctx;
}

std::string scrubbed(const std::string& text) {
  return scrub(text, planted_context());
}

TEST(Scrub, HomeFolders) {
  EXPECT_EQ(scrubbed("at /home/bob/train.py:12"), "at <home>/train.py:12");
  EXPECT_EQ(scrubbed("'/Users/carol/proj/x.yaml'"), "'<home>/proj/x.yaml'");
  EXPECT_EQ(scrubbed("C:\\Users\\dave\\run.py"), "<home>\\run.py");
  EXPECT_EQ(scrubbed("\"C:\\\\Users\\\\dave\\\\run.py\""),
            "\"<home>\\\\run.py\"");
  EXPECT_EQ(scrubbed("cache=/root/.cache/torch"), "cache=<home>/.cache/torch");
  EXPECT_EQ(scrubbed("cd /root"), "cd <home>");
  EXPECT_EQ(scrubbed("/srv/users/alice/data/x.npy"), "<home>/data/x.npy");
  EXPECT_EQ(scrubbed("/srv/root/x and /usr/lib/libc10.so"),
            "/srv/root/x and /usr/lib/libc10.so");
}

TEST(Scrub, UserAndHostNamesAsWholeWords) {
  EXPECT_EQ(scrubbed("alice ran it on gpu-node-7.example.org"),
            "<user> ran it on <host>");
  EXPECT_EQ(scrubbed("[gpu-node-7:1234] Alice"), "[<host>:1234] <user>");
  EXPECT_EQ(scrubbed("malice and aliceberg"), "malice and aliceberg");
}

TEST(Scrub, Emails) {
  EXPECT_EQ(scrubbed("mail bob.smith+ml@corp.example.com now"),
            "mail <email> now");
  EXPECT_EQ(scrubbed("torch@2.1 and a@b"), "torch@2.1 and a@b");
}

TEST(Scrub, SecretsInEveryForm) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"token=abc123 op=mm", "token=<redacted> op=mm"},
      {"HF_TOKEN=hf_shortvalue", "HF_TOKEN=<redacted>"},
      {R"({"api_key": "zz-9f8e7d", "op": "mm"})",
       R"({"api_key": "<redacted>", "op": "mm"})"},
      {"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30",
       "Authorization: <redacted>"},
      {"  password: hunter2 horse\nop: mm", "  password: <redacted>\nop: mm"},
      {"DB_PASSWD = two words", "DB_PASSWD = <redacted>"},
      {"run --token abc --op mm", "run --token <redacted> --op mm"},
      {"apiKey: q1w2e3", "apiKey: <redacted>"},
      {"X-Auth: q1w2e3", "X-Auth: <redacted>"},
      {"client_secret='s3cr3t'", "client_secret='<redacted>'"},
      {"credentials=user:pw", "credentials=<redacted>"},
      {"PRIVATE_KEY: abc", "PRIVATE_KEY: <redacted>"},
      {"curl -H 'bearer XYZ123'", "curl -H 'bearer <redacted>'"},
      {"git clone https://bob:pw123@git.example.org/x",
       "git clone https://<redacted>@git.example.org/x"},
      {"key ghp_0123456789abcdefghijABCDEFGHIJ012345 end",
       "key <redacted> end"},
      {"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
       "<redacted>"},
  };
  for (const auto& [input, expected] : cases) {
    EXPECT_EQ(scrubbed(input), expected) << input;
  }
}

TEST(Scrub, HarmlessTextSurvives) {
  const std::string harmless =
      "op: torch.cross_entropy\nmax_tokens: 128\ntokenizer=bpe\nauthor: "
      "x\nPYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\nshape: [3, 4]\n"
      "Target 4 is out of bounds.";
  EXPECT_EQ(scrubbed(harmless), harmless);
}

TEST(Scrub, SecretKeyNames) {
  for (const char* key :
       {"token", "HF_TOKEN", "apiKey", "x-api-key", "AWS_SECRET_ACCESS_KEY",
        "password", "Authorization", "private_key", "credentials", "auth"}) {
    EXPECT_TRUE(is_secret_key(key)) << key;
  }
  for (const char* key : {"max_tokens", "tokenizer", "author", "op",
                          "PYTORCH_CUDA_ALLOC_CONF", "keyboard"}) {
    EXPECT_FALSE(is_secret_key(key)) << key;
  }
}

// Cut first and the pattern breaks: half an address is no longer an
// address, a short token prefix no longer a token.
TEST(ScrubThenTruncate, ASecretCutInHalfDoesNotLeakItsFirstHalf) {
  const ScrubContext ctx = planted_context();
  const std::string email = "write to bob.jones@example.com please";
  const size_t mid_email = email.find("example") + 3;
  EXPECT_NE(scrub(email.substr(0, mid_email), ctx).find("bob.jones"),
            std::string::npos);  // the wrong order leaks
  const std::string cut_after = scrub_then_truncate(email, mid_email, ctx);
  EXPECT_EQ(cut_after.find("bob.jones"), std::string::npos) << cut_after;
  EXPECT_EQ(cut_after.rfind("write to <email> ", 0), 0u) << cut_after;

  const std::string token = "key ghp_0123456789abcdefghijABCDEFGHIJ012345";
  const std::string cut = scrub_then_truncate(token, 12, ctx);
  EXPECT_EQ(cut.find("ghp_0123"), std::string::npos) << cut;
  EXPECT_EQ(cut.rfind("key <redacte...", 0), 0u) << cut;
  EXPECT_NE(cut.find("more bytes cut"), std::string::npos) << cut;
}

TEST(ScrubThenTruncate, CutsOnAUtf8Boundary) {
  const std::string text = "\xc3\xa9\xc3\xa9\xc3\xa9";  // three e-acute
  const std::string cut = scrub_then_truncate(text, 3, ScrubContext{});
  EXPECT_EQ(cut.rfind("\xc3\xa9...", 0), 0u) << cut;
}

TEST(AllowedEnvironment, OnlyGpuAndTorchVariablesScrubbed) {
  std::array<const char*, 13> variables = {
      "PATH=/usr/bin",
      "HOME=/home/alice",
      "CUDA_VISIBLE_DEVICES=0",
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
      "TORCH_HOME=/home/alice/.cache/torch",
      "HIP_VISIBLE_DEVICES=1",
      "AMD_LOG_LEVEL=3",
      "ROCR_VISIBLE_DEVICES=0",
      "AWS_SECRET_ACCESS_KEY=zzz",
      "TORCH_HUB_TOKEN=abc",
      "CUDAX=1",
      "NOT_CUDA_X=1",
      nullptr};
  const auto allowed = allowed_environment(const_cast<char**>(variables.data()),
                                           planted_context());
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"AMD_LOG_LEVEL", "3"},
      {"CUDA_VISIBLE_DEVICES", "0"},
      {"HIP_VISIBLE_DEVICES", "1"},
      {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
      {"ROCR_VISIBLE_DEVICES", "0"},
      {"TORCH_HOME", "<home>/.cache/torch"},
      {"TORCH_HUB_TOKEN", "<redacted>"},
  };
  EXPECT_EQ(allowed, expected);
}

TEST(ScrubContextOfThisProcess, NamesComeFromTheSystem) {
  const ScrubContext ctx = ScrubContext::from_process();
  std::array<char, 256> host{};
  ASSERT_EQ(gethostname(host.data(), host.size() - 1), 0);
  EXPECT_EQ(ctx.host_name, host.data());
  const passwd* entry = getpwuid(getuid());
  const char* user = getenv("USER");
  if (user == nullptr || *user == '\0') user = getenv("LOGNAME");
  if ((user == nullptr || *user == '\0') && entry != nullptr) {
    user = entry->pw_name;
  }
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(ctx.user_name, user);
  if (ctx.host_name.size() >= 2) {
    const std::string text = "ran on " + ctx.host_name + " today";
    EXPECT_EQ(scrub(text, ctx).find(ctx.host_name), std::string::npos);
  }
}

}  // namespace
}  // namespace casebook
