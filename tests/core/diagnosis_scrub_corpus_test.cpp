// The scrubbing corpus of issues 48 and 49: kinds of personal and secret
// data the probes (diagnosis_scrub_probes_test.cpp) did not hold, each as a
// class (cloud and payment credentials, cookies and auth headers, personal
// identifiers, user folders on every OS, internal hosts and the company's
// domain, a user name as a word), and the harmless look-alikes of each (a
// git SSH remote, public hosts, shapes, versions, dates, error codes, hex,
// numbers that fail a checksum). A sensitive item names what must be gone
// and what must stay; a harmless one must come out byte for byte. The test
// prints both counts and every leak or change.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

struct Item {
  const char* kind;
  const char* text;
  // Sensitive: what must be gone (each). Empty: a harmless item.
  std::vector<const char*> secrets;
  // Sensitive: what must still be there (the rest of the sentence).
  const char* kept;
};

// The machine the corpus is scrubbed on, and what the report's origin gave
// away: its author's name and e-mail, so the company's domain (acme.com);
// a reviewer's e-mail at a mail provider, which is nobody's domain.
ScrubContext corpus_context() {
  ScrubContext ctx;
  ctx.user_name = "jdoe";
  ctx.host_name = "dgx-a100-07";
  ctx.home_dir = "/home/jdoe";
  learn_names("author: Jane Doe <jane.doe@acme.com>", ctx);
  learn_names("reviewer: Bob <bob.k@gmail.com>", ctx);  // a mail provider
  return ctx;
}

const std::vector<Item>& sensitive() {
  static const std::vector<Item> items = {
      // Cloud and payment credentials.
      {"kube client-key-data",
       "    client-key-data: "
       "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB",
       {"LS0tLS1CRUdJTi"},
       "client-key-data: "},
      {"kube client-certificate-data",
       "\"client-certificate-data\": "
       "\"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM4akNDQWRx\",",
       {"LS0tLS1CRUdJTi"},
       "\"client-certificate-data\": \""},
      {"kube token",
       "  user:\n    token: 8f3c2a.a1b2c3d4e5f60718",
       {"a1b2c3d4e5f60718"},
       "    token: "},
      {"Stripe webhook secret",
       "verify with whsec_5f8a1c3e9b2d4f6a8c0e1b3d5f7a9c2e then retry",
       {"5f8a1c3e9b2d"},
       " then retry"},
      {"Stripe live key",
       "charge sk_live_51HxYzAbCdEfGhIjKlMnOpQr99 failed",
       {"51HxYzAbCd"},
       " failed"},
      {"GCP private_key_id",
       "  \"private_key_id\": \"3f9a1c2b7e8d4f6a0b1c2d3e4f5a6b7c8d9e0f1a\",",
       {"3f9a1c2b7e8d"},
       "\"private_key_id\": \""},
      {"GCP access token",
       "gcloud printed ya29.a0AfH6SMBx3kQ7Lm9Zp2Rt5Vw8Yb1Cd4Ef6GhIjK then",
       {"a0AfH6SMBx"},
       " then"},
      {"GCP refresh token",
       "refresh 1//0gLq2Zt8Xw4CgYIARAAGBASNwF-L9IrkN3xV7bQm expired",
       {"0gLq2Zt8Xw4"},
       " expired"},
      {"GCP service account",
       "\"client_email\": \"trainer@ml-prod-123456.iam.gserviceaccount.com\"",
       {"trainer@", "ml-prod-123456"},
       "\"client_email\": \""},
      {"Azure SAS signature",
       "GET https://trainstore.blob.core.windows.net/ckpt/m.pt?sv=2022-11-02"
       "&sp=r&se=2024-06-01T00:00:00Z&sig=a1B%2Bc3D%2Fe5F6g7H8i9J0k1L2m3N4o5"
       "P6q7R8s9T%3D 403",
       {"a1B%2Bc3D", "e5F6g7H8"},
       "?sv=2022-11-02&sp=r&se=2024-06-01T00:00:00Z&sig="},
      {"AWS presigned URL",
       "https://bkt.s3.amazonaws.com/x.pt?X-Amz-Signature="
       "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 "
       "expired",
       {"9f86d081884c"},
       " expired"},
      {"Azure storage key without its key",
       "key2 575yx8xm5MslfY5ubiheyEd7P4zDL/ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQ"
       "b0prFmbh7+wy5yq1XoY1Ba== rotated",
       {"575yx8xm5Msl"},
       " rotated"},
      {"AWS secret after its context",
       "aws configure set aws_secret_access_key "
       "ILADrYssWC7yYC8FUtVmtNs7YbFfWqFBFfUYTyDn",
       {"ILADrYssWC7"},
       "aws_secret_access_key "},
      {"bare AWS secret",
       "exported ZGrBOUTp7tBqHtJvaYALubyNLOidOOvDwR6wMTrV for the job",
       {"ZGrBOUTp7"},
       " for the job"},
      // Cookies and auth headers.
      {"Cookie header",
       "Cookie: _gh_sess=Zk9Xq2; user_session=4f9a8b7c",
       {"Zk9Xq2", "4f9a8b7c"},
       "Cookie: _gh_sess="},
      {"session cookies",
       "sessionid=8c1f3e9a7b2d4c6e5f&csrftoken=Qw3E",
       {"8c1f3e9a7b2d", "Qw3E"},
       "&csrftoken="},
      {"Set-Cookie header",
       "Set-Cookie: sessionid=38afes7a8x; Path=/; HttpOnly",
       {"38afes7a8x"},
       "; Path=/; HttpOnly"},
      {"session id in a URL",
       "GET /app;jsessionid=A1B2C3D4E5F6A7B8 HTTP/1.1",
       {"A1B2C3D4E5F6"},
       " HTTP/1.1"},
      {"session cookie in curl",
       "curl -b 'sessionid=9a8b7c6d5e4f' https://github.com/x",
       {"9a8b7c6d5e4f"},
       "' https://github.com/x"},
      {"Authorization header",
       "Authorization: Basic dXNlcjpwYXNzd29yZA==",
       {"dXNlcjpw"},
       "Authorization: Basic "},
      {"API key header",
       "X-Api-Key: 9f8e7d6c5b4a3f2e sent",
       {"9f8e7d6c5b4a"},
       " sent"},
      // Personal identifiers.
      {"phone, international",
       "call +1 (415) 555-0132 if it fails",
       {"555-0132"},
       " if it fails"},
      {"phone, UK", "on call: +44 20 7946 0958", {"7946 0958"}, "on call: "},
      {"phone, by its label", "phone: 030 1234567", {"1234567"}, "phone: "},
      {"phone, North American",
       "text me at 415-555-0173 tonight",
       {"555-0173"},
       " tonight"},
      {"phone, tel: URI",
       "<a href=\"tel:+14155550132\">",
       {"4155550132"},
       "<a href=\"tel:"},
      {"card, grouped",
       "card 4111 1111 1111 1111 exp 12/27",
       {"4111 1111"},
       " exp 12/27"},
      {"card, ungrouped",
       "paid with card 5555555555554444 ok",
       {"5555555555554444"},
       " ok"},
      {"card, Amex",
       "amex 3782 822463 10005 declined",
       {"822463"},
       " declined"},
      {"card, dashes", "cc=4012-8888-8888-1881", {"8888-8888"}, "cc="},
      {"IBAN, grouped",
       "IBAN DE89 3704 0044 0532 0130 00 for refunds",
       {"3704 0044"},
       " for refunds"},
      {"IBAN, compact", "pay to GB82WEST12345698765432.", {"GB82WEST"}, "."},
      {"IBAN, French",
       "FR76 3000 6000 0112 3456 7890 189 (FR)",
       {"0112 3456"},
       " (FR)"},
      {"SSN", "SSN 536-22-8741 on file", {"536-22-8741"}, " on file"},
      {"SSN by its label", "ssn: 536228741", {"536228741"}, "ssn: "},
      // User folders on every OS.
      {"Windows user folder with a surname",
       "C:\\Users\\John Smith\\Documents\\run.py failed",
       {"John", "Smith"},
       "\\Documents\\run.py failed"},
      {"Windows user folder, JSON-escaped",
       "\"C:\\\\Users\\\\Mary Ann Lee\\\\AppData\\\\x\"",
       {"Mary", "Lee"},
       "\\\\AppData\\\\x\""},
      {"UNC home share",
       "\\\\fs01\\home$\\kmiller\\runs\\x.pt",
       {"fs01", "kmiller"},
       "\\runs\\x.pt"},
      {"UNC share",
       "copied to \\\\nas-02\\ml-data\\imagenet",
       {"nas-02"},
       "\\ml-data\\imagenet"},
      {"UNC paths, JSON-escaped",
       "[\"\\\\\\\\fs01\\\\users\\\\kmiller\\\\x\", "
       "\"\\\\\\\\nas-02\\\\ml\"]",
       {"fs01", "kmiller", "nas-02"},
       "\\\\x\", \""},
      {"~user", "ls ~pwhite/checkpoints", {"pwhite"}, "/checkpoints"},
      {"~user, quoted",
       "\"cache_dir\": \"~rgarcia/.cache/torch\"",
       {"rgarcia"},
       "/.cache/torch\""},
      {"macOS user folder with a space",
       "/Users/Ann Lee/Desktop/x.py",
       {"Ann", "Lee"},
       "/Desktop/x.py"},
      {"Linux home folder", "/home/kmiller/x.npy", {"kmiller"}, "/x.npy"},
      // User names, internal hosts and the company's domain.
      {"user name as a plain word",
       "ask jdoe about the labels",
       {"jdoe"},
       " about the labels"},
      {"user learned from the origin",
       "jane.doe ran it",
       {"jane.doe"},
       " ran it"},
      {"full name learned from the origin",
       "approved by Jane Doe today",
       {"Jane Doe"},
       " today"},
      {"internal wiki",
       "see https://wiki.corp.acme.com/ml/labels first",
       {"acme", "wiki"},
       " first"},
      {"host in a corp subdomain",
       "NCCL peer gpu-07.corp.acme.com timed out",
       {"gpu-07", "acme"},
       " timed out"},
      {"host of the company's domain",
       "artifacts on ml-data.acme.com today",
       {"acme", "ml-data"},
       " today"},
      {"host of the company's domain in a path",
       "mounted /mnt/ml-data.acme.com/x",
       {"acme"},
       "/x"},
      {"the company's domain itself",
       "mirror at acme.com/pypi",
       {"acme"},
       "/pypi"},
      {"corp subdomain of another domain",
       "see https://wiki.corp.initech.net/x and build-2.corp.initech.net",
       {"initech"},
       " and "},
      {".internal host",
       "db-3.ml.internal:5432 refused",
       {"db-3"},
       ":5432 refused"},
      {".lan host", "nas.lan is down", {"nas.lan"}, " is down"},
  };
  return items;
}

const std::vector<Item>& harmless() {
  static const std::vector<Item> items = {
      {"git SSH remote", "origin git@github.com:pytorch/pytorch.git", {}, ""},
      {"git SSH remote", "git clone git@gitlab.com:libeigen/eigen.git", {}, ""},
      {"ssh error", "git@github.com: Permission denied (publickey).", {}, ""},
      {"public hosts",
       "pip install torch --index-url https://download.pytorch.org/whl/cu121",
       {},
       ""},
      {"public hosts",
       "see https://pytorch.org/docs/stable/generated/"
       "torch.nn.CrossEntropyLoss.html",
       {},
       ""},
      {"public hosts",
       "driver from https://www.nvidia.com/Download/index.aspx or "
       "developer.nvidia.com/cuda-downloads",
       {},
       ""},
      {"public hosts",
       "https://huggingface.co/bert-base-uncased on pypi.org",
       {},
       ""},
      {"shapes", "shape [512, 1000] vs torch.Size([64, 3, 224, 224])", {}, ""},
      {"versions",
       "torch 2.1.0+cu121, CUDA 12.1, cuDNN 8.9.2.26, 535.104.05",
       {},
       ""},
      {"CUDA error code",
       "CUDA error 710: device-side assert (cudaErrorAssert)",
       {},
       ""},
      {"hex pointers",
       "pointers 0x7f3a2b1c4d5e and 0x00007ffd5a3c9e10",
       {},
       ""},
      {"timestamps",
       "at 2024-01-02T12:34:56.789Z (1704198896123456789 ns)",
       {},
       ""},
      {"seed", "seed: 1234567890123456", {}, ""},
      {"ids",
       "id 4242424242424242 in batch, row 536228741 of 900000000",
       {},
       ""},
      {"tensor values",
       "values: [4111, 1111, 1111, 1111] and [415, 555, 132]",
       {},
       ""},
      {"tensor values",
       "tensor([[ 0.1234, -0.5678], [+1.5000, 2.0000]])",
       {},
       ""},
      {"numbers", "lr 3e-4, eps 1e-08, step 4155550132, +1 per index", {}, ""},
      {"numbers",
       "+1234.5678 [4111 1111 1111 1111] 4111 1111 1111 1111 2048 4111 1111 "
       "1111 1111",
       {},
       ""},
      {"part number", "board 900-2G133-0000-000, A100-SXM4-80GB", {}, ""},
      {"destructor", "in at::Tensor::~Tensor() at TensorBase.h:12", {}, ""},
      {"home shorthand", "cache at ~/.cache/torch, about ~100 ms", {}, ""},
      {"bitwise not", "    out = ~mask & valid  # '~isin'", {}, ""},
      {"at signs", "@pytest.mark.parametrize and torch@2.1", {}, ""},
      {"backslashes", "the regex \\d+\\.\\d+ splits on \\\\ and \\n", {}, ""},
      {"cookie words", "the cookie jar was empty; session closed", {}, ""},
      {"a word like the company",
       "Let's Encrypt speaks ACME (RFC 8555)",
       {},
       ""},
      {"card failing Luhn", "not a card: 4111 1111 1111 1112", {}, ""},
      {"IBAN failing mod-97",
       "not an IBAN: DE89 3704 0044 0532 0130 01",
       {},
       ""},
      {"SSN of an invalid area", "000-12-3456 and 666-12-3456", {}, ""},
      {"dates and times", "on 2024-01-02 at 12:34:56, 03/04/2024", {}, ""},
      {"40-character names",
       "in NllLossForwardReduceCudaKernel2dBlocks12",
       {},
       ""},
      {"40-character names",
       "TEST(Npy, NumpyV2IsReadAsBfloat16WhenTheCaseSaysSo)",
       {},
       ""},
      {"40-character names",
       "CudaCachingAllocatorConfigParseArgs12345 failed",
       {},
       ""},
      {"git revision",
       "revision 3f2c9e1a0b4d5c6e7f8091a2b3c4d5e6f7a8b9c0",
       {},
       ""},
      {"indices",
       "index [3, 1023] of [4, 1024], pid 12345, port 29500",
       {},
       ""},
      {"device list", "CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL 2.18.3", {}, ""},
      {"OAuth scope",
       "scope https://www.googleapis.com/auth/cloud-platform",
       {},
       ""},
      {"a mail provider's host", "SMTP via smtp.gmail.com:587", {}, ""},
      {"escaped bytes",
       "printable: \"\\\\xc0\\\\xaf\" and \\\\1.\\\\2",
       {},
       ""},
  };
  return items;
}

TEST(ScrubCorpus, NoSensitiveItemLeaksAndNoHarmlessOneChanges) {
  const ScrubContext ctx = corpus_context();
  int leaked = 0;
  int changed = 0;
  for (const Item& item : sensitive()) {
    const std::string out = scrub(item.text, ctx);
    bool leaks = false;
    for (const char* secret : item.secrets) {
      leaks = leaks || out.find(secret) != std::string::npos;
    }
    const bool loses_meaning = out.find(item.kept) == std::string::npos;
    leaked += leaks ? 1 : 0;
    if (leaks || loses_meaning) {
      ADD_FAILURE() << (leaks ? "leak" : "meaning lost") << " (" << item.kind
                    << "):\n  " << item.text << "\n  -> " << out;
    }
  }
  for (const Item& item : harmless()) {
    const std::string out = scrub(item.text, ctx);
    if (out != item.text) {
      ++changed;
      ADD_FAILURE() << "harmless item changed (" << item.kind << "):\n  "
                    << item.text << "\n  -> " << out;
    }
  }
  std::cout << "scrubbing corpus: " << sensitive().size() << " sensitive ("
            << leaked << " leaked), " << harmless().size() << " harmless ("
            << changed << " changed)\n";
  EXPECT_GE(sensitive().size(), 40u);
  EXPECT_GE(harmless().size(), 20u);
  EXPECT_EQ(leaked, 0);
  EXPECT_EQ(changed, 0);
}

// The organisation's domain from the machine's own name or a host field: its
// hosts are replaced whole; a public or internal name gives none.
TEST(ScrubCorpus, TheCompanyDomainIsLearnedFromHostNames) {
  ScrubContext ctx;
  ctx.host_name = "login1.hpc.initech.net";
  EXPECT_EQ(
      scrub("pip from pkgs.initech.net/simple, initech.net, github.com", ctx),
      "pip from <host>/simple, <host>, github.com");
  EXPECT_EQ(scrub("HOSTNAME=node-3.labs.umbrella.co.uk\n"
                  "artifacts.umbrella.co.uk is down",
                  ScrubContext{}),
            "HOSTNAME=<host>\n<host> is down");
  ScrubContext public_host;
  public_host.host_name = "ip-10-0-0-1.ec2.internal";
  learn_names("mail: someone@gmail.com", public_host);
  EXPECT_EQ(scrub("see ec2.amazonaws.com and gmail.com", public_host),
            "see ec2.amazonaws.com and gmail.com");
  // A git remote on an internal forge is the organisation's.
  EXPECT_EQ(scrub("origin git@gitlab.initech.internal:ml/x.git", ctx),
            "origin <email>:ml/x.git");
}

TEST(ScrubCorpus, SecretKeysOfCookiesAndCloudConfigs) {
  for (const char* key :
       {"client-key-data", "client-certificate-data", "private_key_id",
        "sessionid", "JSESSIONID", "PHPSESSID", "csrftoken", "session_id"}) {
    EXPECT_TRUE(is_secret_key(key)) << key;
  }
  for (const char* key : {"certificate-authority-data", "key_id", "data",
                          "session", "sessionid_length", "cookie_name"}) {
    EXPECT_FALSE(is_secret_key(key)) << key;
  }
}

// A cookie's name and attributes stay, its value goes, once in the log.
TEST(ScrubCorpus, CookiesKeepTheirNamesAndAttributes) {
  EXPECT_EQ(scrub("Set-Cookie: sid=abc; Path=/; Expires=Wed, 21 Oct 2026 "
                  "07:28:00 GMT; HttpOnly",
                  ScrubContext{}),
            "Set-Cookie: sid=<redacted>; Path=/; Expires=Wed, 21 Oct 2026 "
            "07:28:00 GMT; HttpOnly");
  EXPECT_EQ(scrub("curl -H 'Cookie: a=1; b=2' https://x.org", ScrubContext{}),
            "curl -H 'Cookie: a=<redacted>; b=<redacted>' https://x.org");
  ScrubContext ctx;
  ScrubLog log;
  ctx.log = &log;
  scrub("Cookie: sessionid=abc", ctx);
  EXPECT_EQ(log.summary(), "  secret (1): (value not shown)\n");
}

TEST(ScrubCorpus, IdentifiersAreMarkedByKindAndLoggedWithoutTheirValue) {
  ScrubContext ctx;
  ScrubLog log;
  ctx.log = &log;
  EXPECT_EQ(scrub("card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00,"
                  " SSN 536-22-8741, call +1 (415) 555-0132",
                  ctx),
            "card <card>, IBAN <iban>, SSN <ssn>, call <phone>");
  EXPECT_EQ(log.summary(),
            "  IBAN (1): (value not shown)\n"
            "  card number (1): (value not shown)\n"
            "  phone number (1): (value not shown)\n"
            "  social security number (1): (value not shown)\n");
}

TEST(ScrubCorpus, UserFoldersOnEveryOs) {
  const ScrubContext none;
  EXPECT_EQ(scrub("C:\\Users\\John Smith\\x; John Smith ran it", none),
            "<home>\\x; <user> ran it");
  // Only capitalised words join a name, and only before a separator.
  EXPECT_EQ(scrub("C:\\Users\\jdoe wrote out/x", none), "<home> wrote out/x");
  EXPECT_EQ(scrub("\\\\fs01\\home$\\kmiller\\x and \\\\nas-02\\ml-data", none),
            "<home>\\x and \\\\<host>\\ml-data");
  EXPECT_EQ(scrub("~pwhite/ckpt, ~/x, ~Tensor(), ~mask", none),
            "<home>/ckpt, ~/x, ~Tensor(), ~mask");
}

}  // namespace
}  // namespace casebook
