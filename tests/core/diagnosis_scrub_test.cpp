// Scrubbing: home folders, user and host names, e-mails and secrets in every
// form; harmless text kept; truncation only after scrubbing.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <array>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "planted_scrub_context.h"

namespace casebook {
namespace {

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

TEST(Scrub, UserAndHostNamesWhereTheyIdentifySomeone) {
  // A distinctive host name (digits, '-', '.') is a name anywhere, and so
  // is the user's login where it is no common word ("mark" below).
  EXPECT_EQ(scrubbed("alice ran it on gpu-node-7.example.org"),
            "<user> ran it on <host>");
  EXPECT_EQ(scrubbed("[gpu-node-7:1234] Alice"), "[<host>:1234] <user>");
  EXPECT_EQ(scrubbed("alice@gpu-node-7:~$ python train.py"),
            "<user>@<host>:~$ python train.py");
  EXPECT_EQ(scrubbed("/data/alice/run1 and /mnt/gpu-node-7/x"),
            "/data/<user>/run1 and /mnt/<host>/x");
  EXPECT_EQ(scrubbed("user: alice\nUSER=alice\n\"owner\": \"alice\""),
            "user: <user>\nUSER=<user>\n\"owner\": \"<user>\"");
  EXPECT_EQ(scrubbed("hostname: dgx01\nHOSTNAME=gpu-node-7"),
            "hostname: <host>\nHOSTNAME=<host>");
  EXPECT_EQ(scrubbed("malice and aliceberg"), "malice and aliceberg");
}

ScrubContext context_of(const std::string& user, const std::string& host,
                        const std::string& home) {
  ScrubContext ctx;
  ctx.user_name = user;
  ctx.host_name = host;
  ctx.home_dir = home;
  return ctx;
}

// The contexts of the issue: each name as a free word used to be replaced.
TEST(Scrub, GenericAccountsAndCommonWordsKeepTheirMeaning) {
  const ScrubContext root = context_of("root", "box1", "/root");
  EXPECT_EQ(scrub("the root cause is a label of 4", root),
            "the root cause is a label of 4");
  EXPECT_EQ(scrub("mounted /rootfs at /root/x", root),
            "mounted /rootfs at <home>/x");
  EXPECT_EQ(scrub("root@box1:~# nvidia-smi", root),
            "root@<host>:~# nvidia-smi");

  const ScrubContext ubuntu =
      context_of("ubuntu", "ip-10-0-3-7", "/home/ubuntu");
  EXPECT_EQ(scrub("Ubuntu 22.04 on ip-10-0-3-7", ubuntu),
            "Ubuntu 22.04 on <host>");
  EXPECT_EQ(scrub("user: ubuntu", ubuntu), "user: ubuntu");

  const ScrubContext gpu =
      context_of("mark", "gpu.cluster.local", "/home/mark");
  EXPECT_EQ(scrub("GPU 0: NVIDIA H100 (gpu.cluster.local); mark the step", gpu),
            "GPU 0: NVIDIA H100 (<host>); mark the step");
  EXPECT_EQ(scrub("ssh mark@gpu.cluster.local", gpu), "ssh <email>");
  EXPECT_EQ(scrub("mark@gpu:~$ ls", gpu), "<user>@gpu:~$ ls");
  EXPECT_EQ(scrub("/home/mark/runs", gpu), "<home>/runs");

  const ScrubContext runner =
      context_of("runner", "fv-az123-456", "/home/runner");
  EXPECT_EQ(scrub("the runner failed on fv-az123-456", runner),
            "the runner failed on <host>");
}

TEST(Scrub, SecretsByWholeKeyNames) {
  const std::string inputs =
      "inputs:\n  token_type_ids: {dtype: int64, values: [0, 0, 1]}\n"
      "  attention_mask: {dtype: int64, values: [1, 1, 1]}\n"
      "max_tokens: 128\nsecret_name: prod-db\npassword_file: pw.txt";
  EXPECT_EQ(scrubbed(inputs), inputs);
  EXPECT_EQ(scrubbed("access_token: abc\nclient_secret=xyz"),
            "access_token: <redacted>\nclient_secret=<redacted>");
}

TEST(Scrub, AddressesInternalHostsAndUrls) {
  EXPECT_EQ(scrubbed("NCCL INFO Bootstrap : Using eth0:10.12.3.4<0>"),
            "NCCL INFO Bootstrap : Using eth0:<ip><0>");
  EXPECT_EQ(scrubbed("connect to 192.168.1.20:29500 failed"),
            "connect to <ip>:29500 failed");
  EXPECT_EQ(scrubbed("bound to 127.0.0.1 and 0.0.0.0"),
            "bound to 127.0.0.1 and 0.0.0.0");
  EXPECT_EQ(scrubbed("cuDNN version 8.9.2.26, torch 2.1.0, Ubuntu 22.04"),
            "cuDNN version 8.9.2.26, torch 2.1.0, Ubuntu 22.04");
  EXPECT_EQ(scrubbed("peer fe80::1ff:fe23:4567:890a down"), "peer <ip> down");
  EXPECT_EQ(scrubbed("std::vector and at::Tensor and 12:34:56 and ::1"),
            "std::vector and at::Tensor and 12:34:56 and ::1");
  EXPECT_EQ(scrubbed("see http://wiki.corp/x?y=1 or https://jenkins:8080/job/7"
                     " or https://github.com/pytorch/pytorch/issues/1"),
            "see <internal-url> or <internal-url> or "
            "https://github.com/pytorch/pytorch/issues/1");
  EXPECT_EQ(scrubbed("MASTER_ADDR=node-17.cluster.local"),
            "MASTER_ADDR=<host>");
  EXPECT_EQ(scrubbed("http://localhost:8888/lab"), "http://localhost:8888/lab");
}

TEST(Scrub, OtherUsersHomeAndScratchFolders) {
  EXPECT_EQ(scrubbed("/scratch/bob/ckpt/step_100.pt"),
            "/scratch/<user>/ckpt/step_100.pt");
  EXPECT_EQ(scrubbed("/lustre/carol/x and /scratch/shared/imagenet"),
            "/lustre/<user>/x and /scratch/shared/imagenet");
  EXPECT_EQ(scrubbed("/home/dave/.cache"), "<home>/.cache");
}

TEST(ScrubLog, ListsWhatWasReplacedByKind) {
  ScrubContext ctx = planted_context();
  ScrubLog log;
  ctx.log = &log;
  scrub(
      "token=abc at /home/bob/x on 10.1.2.3, alice@gpu-node-7, "
      "/scratch/carol and mail a.b@example.com",
      ctx);
  EXPECT_EQ(log.summary(),
            "  IP address (1): 10.1.2.3\n"
            "  e-mail (1): a.b@example.com\n"
            "  home folder (1): /home/bob\n"
            "  host name (1): gpu-node-7\n"
            "  secret (1): (value not shown)\n"
            "  user name (2): alice, carol\n");
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
      // The scheme stays, the credential goes.
      {"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30",
       "Authorization: Bearer <redacted>"},
      // Token by token, never to the end of the line: what follows the
      // value is the rest of the sentence (a two-word passphrase is the
      // price; the log lists every redaction for the person to check).
      {"  password: hunter2\nop: mm", "  password: <redacted>\nop: mm"},
      {"DB_PASSWD = hunter2 was wrong", "DB_PASSWD = <redacted> was wrong"},
      {"run --token abc --op mm", "run --token <redacted> --op mm"},
      {"apiKey: q1w2e3", "apiKey: <redacted>"},
      {"X-Auth: q1w2e3", "X-Auth: <redacted>"},
      {"client_secret='s3cr3t'", "client_secret='<redacted>'"},
      {"credentials=user:pw", "credentials=<redacted>"},
      {"PRIVATE_KEY: abc", "PRIVATE_KEY: <redacted>"},
      {"curl -H 'bearer XYZ123'", "curl -H 'bearer <redacted>'"},
      // Credentials open a private service: its host goes with them.
      {"git clone https://bob:pw123@git.example.org/x",
       "git clone https://<redacted>@<host>/x"},
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
        "password", "Authorization", "private_key", "credentials", "auth",
        "access_token", "client_secret", "DB_PASSWORD", "GITHUB_PAT"}) {
    EXPECT_TRUE(is_secret_key(key)) << key;
  }
  for (const char* key :
       {"max_tokens", "tokenizer", "author", "op", "PYTORCH_CUDA_ALLOC_CONF",
        "keyboard", "token_type_ids", "secret_name", "password_file",
        "num_tokens", "key"}) {
    EXPECT_FALSE(is_secret_key(key)) << key;
  }
}

// Cut first and the pattern breaks: half an address is no longer an
// address, a short token prefix no longer a token.
TEST(ScrubThenTruncate, ASecretCutInHalfDoesNotLeakItsFirstHalf) {
  const ScrubContext ctx = planted_context();
  const std::string email = "write to bob.jones@example.com please";
  const size_t mid_email = email.find('@') + 1;
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
  if (ctx.host_name.size() >= 2 && !ctx.user_name.empty()) {
    // Where it identifies someone (a plain word host name is not replaced
    // as a free word: "vm", "gpu").
    const std::string text = "ssh x" + ctx.user_name + "@" + ctx.host_name +
                             " and HOSTNAME=" + ctx.host_name;
    EXPECT_EQ(scrub(text, ctx).find(ctx.host_name + " "), std::string::npos)
        << scrub(text, ctx);
  }
}

}  // namespace
}  // namespace casebook
