# Copyright 2026 perfkit-plugins Authors. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Downloads the benchmark installs: where they come from, how they are checked.

Every tarball the benchmark installs (the Apache Cassandra binary tarball,
ScyllaDB's cassandra-stress release) has a URL template and a checksum, each
overridable by a flag, so installs can come from a mirror (machines without a
route to the internet, enterprise artifact stores) and are verified before
they are unpacked. The checksum is, in this order:

1. the one given by the artifact's checksum flag (`sha256:<hex>` or
   `sha512:<hex>`);
2. the one this project pins for that version (PINNED_SHA512: Apache
   Cassandra releases, from the `.sha512` files Apache publishes, as the
   official Docker images record them);
3. the one published beside the artifact (`<url>.sha512` or `<url>.sha256`,
   as Apache and ScyllaDB's release workflow publish them), fetched from the
   same place as the artifact. This catches a corrupt or substituted file on
   a mirror that does not also substitute its checksum file; the sample
   metadata says which source was used.
"""

import dataclasses
import re
import string

SHA256 = 'sha256'
SHA512 = 'sha512'
_HEX_LENGTHS = {SHA256: 64, SHA512: 128}
_CHECKSUM_RE = re.compile(r'(sha256|sha512):([0-9a-fA-F]+)')
_URL_RE = re.compile(r'(https?|ftp|file)://\S+')
# What a URL template may name.
PLACEHOLDER = 'version'

SOURCE_FLAG = 'flag'
SOURCE_PINNED = 'pinned'
SOURCE_PUBLISHED = 'published'

# sha512 of apache-cassandra-<version>-bin.tar.gz, as Apache publishes it in
# <tarball>.sha512 (recorded by github.com/docker-library/cassandra's
# versions.json, up to its 2026-04-16 revision). Newer releases fall back to
# the published checksum.
PINNED_SHA512 = {
    '4.0.0': (
        '94e923963531b97dbfcf90eb95e423abd9990fae02d1c9a90bf2d76ceb6cd9e4'
        '22db628b9ec3a45994b3654f1f562f5df84718064722004ae8ba5b5abb11d0b6'
    ),
    '4.0.1': (
        '2890c054666afa93fe2978c46da5db15ed7d11d60f4890574dc642bd81f7b3af'
        '40b41d3e5b8245e6c1453a165eddebeb28bcf3fef1a2b2fc6fb3b82058d7ceb0'
    ),
    '4.0.2': (
        '4653ee99acc6e386e065bb58ef4772420faafcd56b99ff57072dbd969a17abfe'
        '2a515cf26fe3de08818f69412159999de5f3b6ef097408599b0304e2d915dd9f'
    ),
    '4.0.3': (
        'b328a6bed9bf2d92f1e44a540bf1d800e26163257ca8e69d6f43ca792aeefe5b'
        'acf61b6e5bf2cf7233e34a168ab19de96a52fb3fe82304b7749fde2d7baa81d9'
    ),
    '4.0.4': (
        '67a7830d32851bd8b7b02731a331a7640f5d7ab2a4d0b7caf1dee6e301c7508c'
        'e5209bd60faf42db915462d0796df833c021a4a964efce55561df57e91c27432'
    ),
    '4.0.5': (
        '188e131392ea0e48b46f24b1be297ef6335197f4480c9421328006507e069dce'
        '659ce3ce473906398273a5926e331960cbf824362e40cb4c74670cde95458349'
    ),
    '4.0.6': (
        '07c2a2f018c5921bfe0d7afba877a23d0ac5bbda05b9414abc60b4fae761115d'
        '0fb650eb226247b66d62c450d7eeadc95b6e270ebf0339d8263222fe5d49b07b'
    ),
    '4.0.7': (
        '99e5fe5411fb2f82dc588091923a192211f9fda911c3b9da8371fe803155063d'
        '2f46bbe57c4c118dc1a2971b37f939dad57ec5ab164da91646fbea26798153b2'
    ),
    '4.0.8': (
        '6cb37f7266f446a23f32d73a128f7e96056b8829cbe653b1ecb4683fd4dab8f0'
        'd7a13357f7ee4ee2d6cc77dcbd97ca3dcce017334b9d129b01ca2b0660bc7ee6'
    ),
    '4.0.9': (
        '94ec77fec09ed69912dd1da98f39e5e5d68aba8003180b62a0b0599cf6bae895'
        'a0944c9e0ac2b966d4e7658c188782025ab82f32e9f3139c5090d28be470e0a2'
    ),
    '4.0.10': (
        'c398ae90597f25036a424d9fd61806f76939f40a144945db75247da28bd1a047'
        '6ba5679fd0318fefe7fc5be4533f734028119f03f718cc91f471f01d971563cb'
    ),
    '4.0.11': (
        '92bd35819e86927709add1075023af5aed93d42e0115bfa6b675b15e93b31bff'
        'a6fd3b9ff95a403bb9650ec417a0567ac776c88b56fe373938451746bbc64a50'
    ),
    '4.0.12': (
        '65de9cc32f3d22d55f5c7c3b1417285a41aabb70fa8a4ae8d9d85a58e644f431'
        '51bf4f386cc45773b6ac317db38c4576b139ca6b6fcdbbd16993d09ee2a5c2b8'
    ),
    '4.0.13': (
        '4172ef70aa4c51fb463c62019643c1d62c16f6c9a175ff4d9d1e869b234983a6'
        '8694a4167946a3f70d4556f8c5f2494b809090e2cec3cb327956478028e95bf5'
    ),
    '4.0.14': (
        '8f6adbbcd4e46a566c6f789a8d18c7478e5f2039a081a6f00c2c4c3ff9dc654f'
        'd38bb2f549157e554fc2f174347e47dd1b932cd4c7e71dcc07e58261b692a03e'
    ),
    '4.0.15': (
        '9368639fe07613995fec2d50de13ba5b4a2d02e3da628daa1a3165aa009e3562'
        '95d7f7aefde0dedaab385e9752755af8385679dd5f919902454df29114a3fcc0'
    ),
    '4.0.16': (
        '48f3464e25aabadb0d9c30fe5e30082dda9254d9c2336dbdd34d6b3803ea5340'
        'fd97d55e749db3a9e1098f1c6b23820024cab33c7aac5c803d1370f17f6dbf92'
    ),
    '4.0.17': (
        '7f72941dd1c73e30361cc2aad55dabd7005e95f2275c9190645fd0467cac6da6'
        '7f8602ffbae53fb98367cb67116b4e271b8293381d7d5041267ce2437e8273be'
    ),
    '4.0.18': (
        'e9e4bb3149dce09b5f8dbe55d32892b147cdd13be7863851b0a1cb95113636e4'
        '433563e668759b49a8293c1cd766b331d27958f93331e9b3966951fc1c4681e6'
    ),
    '4.0.19': (
        '2b12b97ebe2be27a468397ab58006708a474d53d3cf636de7405cce404cbffad'
        '2194e72de85e5d60a9f4d9626cbdfc7d06588a0cea037e34497f0aa1edc80e44'
    ),
    '4.0.20': (
        '4abd74a1a488360d94ee3bca905c7095cac2e3328577e46622aa41144b1a6128'
        '44af79ba5ec3e98b26d08fee168511fac128bc6ea2eb2026f981d72bfdeb9fdb'
    ),
    '4.1.0': (
        'd8cb800e99d8905e85a62d1d658c1c3056459e7ba0b27e0997e1c537918be8ab'
        '333f2a89cf38cafc04ab4d711fd8c542593548fb30bf6a81329f2b47370389e9'
    ),
    '4.1.1': (
        'dc11ce5c0485d2d54d0fff3ae35d1b7f1c3e32055c0699206f59a5bbe983b509'
        '72ceb4638bfe65a7c80a6db5052b70ad75718525eef812ba9ae6a301fd5bc8be'
    ),
    '4.1.2': (
        'e6ba9efc46743547130cbcd0e174d6761e442f97b17732df8f15d25c9dcf5eaf'
        '009e0ac550aad3e34e5f8fc1b300062ad248def3ca85ef372d20d745698f01f9'
    ),
    '4.1.3': (
        '393443a5b9849645362df2f7536e734e1fc6d513aadf440fab8dda3063553394'
        'a138805098796d35f9d4d31e2899ecab630a2ec2a44d00d5e63bed549a2e844c'
    ),
    '4.1.4': (
        'ddc9f4157a6e272b421850c7787b822bae36c72ab2dce711a91dc24fe18bf56f'
        '2cd91c61410243cdc0eeeb5f2a7e5419f8a531863116026996bd3f167c36a916'
    ),
    '4.1.5': (
        '9b76bcba188c34de0bec7327adb5d4d571df7ac485788e577974f361422c229d'
        'f17d90925eff20d97090581c01756bc7a7fc8b8f01f99297c90276240e27ebeb'
    ),
    '4.1.6': (
        '3bae2a75aefc139ceaa9beb4709f9ee533517937ae292aba0102788cbf08f94f'
        '503c707124beaf06e28eca20dacf00a729da326c178bda432adfac2cd32b91c6'
    ),
    '4.1.7': (
        '5c5aeaf5d9ee4aab2a901188cd66a6056e4f06c61a6a7c6645f5994484abf894'
        '2f7be9a51f638827649f918980ef510760a5a900fd8bdfe3b72c3e40bac1d3cb'
    ),
    '4.1.8': (
        '13eee692627b5c88b2e6cda56e0aa1e5605403a777514f541496fa1985decb9b'
        '9417496984af9982060a874f1cb4d83789eb0fcb1ea549067df12388613550d8'
    ),
    '4.1.9': (
        'ece9397a8d85a2dd7974932efca0a9b7a004850c34ecb0ec0fd4d30606a56dd7'
        '257a36b8bfb8b974ba154ab79887539eabaee8692cc8db606837848042104be7'
    ),
    '4.1.10': (
        '42b941e230287adc6a3763db5d2d5d3b57e80f1d151f9582b6ac17a86971d601'
        'a5a1979b341ac1e00c1ca0eb7d0690c7e615dbad1d81fa76df195de0376d78a8'
    ),
    '4.1.11': (
        'c31ead4e137774964818b3acfc2a16c329cce412ebb003baf447c3d453800a59'
        '0d970cbe98641bd81539fd7a7fb8a1b6b569e5072c93fc2e18f40eaa638225be'
    ),
    '5.0.0': (
        'cf91d9a5fe370a3b7eab9447852c491de1c17aca5a71c5ff06a672d210f8d650'
        '0d973f2d1827250b071ab5e7d6d5d58c0e79dcef5b134913b4a610674d6ae7ed'
    ),
    '5.0.1': (
        '0e1f56958c30cb34a2478856be3e9e97615be2aabe6f5d30e3c72f13e0866249'
        'f925312b32c8b28a8fdbe09a0a90ae45bdbd32709d6a7378951ad9e8b1c2e074'
    ),
    '5.0.2': (
        '51478b18b8bce82a6b4915f31470d031306724041a4f2b684fd17635f8a5a980'
        '2594c0bbc3d0154cfa52d87a253d7868636985787aa1e3e00136259302689363'
    ),
    '5.0.3': (
        '9b2fa89f729a89473934a18d4056d200859bed6e4f9d288b9fca9e8f4056c2d1'
        'ccb128948996368395ccd8bb4d5c94b9d8c79c7603de2dcb5b15976ac8c6da8f'
    ),
    '5.0.4': (
        '16de8bb78af94dabfd916825f492de7040a7311791bc1d630f14707d88f7132e'
        '51ae38dad7ebbaf13d2d154af0bdeefe318d680798b8e247ae4117cbc0e2f6df'
    ),
    '5.0.5': (
        'a1c1a98d32fb706e65da07308323d3082ba65db1b8713c48c595030c22d97aea'
        'b5678aa6e1ddf4e7e852060b44cd24eff7fa70b5250b5e9c39cc8cb96f4127f2'
    ),
    '5.0.6': (
        'cab82049269e91ecd13e525254427d9b6139d8982fd1ddb8256ac7ebebc2fae4'
        '12721750d7b30b1ee4e86f81d1960a87a2220d4a4a34d11f05c5aca0be6cd649'
    ),
    '5.0.7': (
        '7a36805a87adacd1c897dabf81e5c7007334936ae200340504474e09eb0800c0'
        'a7ff5f8c7778fd19a96a93b1b3f5844aff5644e55cd33928b358fea53159c2c9'
    ),
    '5.0.8': (
        '06b7af18c8f41dc13dbfdae186d565a5f91e71ea413c3c5373aec8a4e5074c6d'
        'ee5632a0e5e98c21665f08f7291d7ca384f61a323c02610c6bca51e074b5a0c4'
    ),
}


class ArtifactError(Exception):
  """An artifact could not be downloaded or is not what it should be."""


@dataclasses.dataclass(frozen=True)
class Checksum:
  """An expected digest and where it comes from.

  Attributes:
    algorithm: SHA256 or SHA512.
    digest: lower-case hex digest.
    source: SOURCE_FLAG, SOURCE_PINNED or SOURCE_PUBLISHED.
  """

  algorithm: str
  digest: str
  source: str

  def Text(self):
    return f'{self.algorithm}:{self.digest}'


@dataclasses.dataclass(frozen=True)
class Artifact:
  """One download and how to check it.

  Attributes:
    name: what it is, for messages (e.g. 'Apache Cassandra 5.0.9 tarball').
    version: the version the URL template was expanded with.
    url: where it is downloaded from.
    url_flag: the flag that sets the URL template.
    checksum_flag: the flag that sets the checksum.
    checksum: the expected checksum, or None when the one published beside
      the artifact is to be used.
    published_algorithm: the algorithm of the published checksum file.
  """

  name: str
  version: str
  url: str
  url_flag: str
  checksum_flag: str
  checksum: Checksum | None
  published_algorithm: str = SHA512

  @property
  def published_url(self):
    """The checksum file published beside the artifact."""
    return f'{self.url}.{self.published_algorithm}'

  def Metadata(self, prefix, checksum):
    """Sample metadata of the installed artifact (checksum: the verified one).

    Args:
      prefix: key prefix, e.g. 'scylla_stress_'.
      checksum: the Checksum the download was verified against.
    """
    return {
        f'{prefix}url': self.url,
        f'{prefix}checksum': checksum.Text(),
        f'{prefix}checksum_source': checksum.source,
    }


def ParseChecksum(text, source=SOURCE_FLAG):
  """'sha256:<64 hex>' or 'sha512:<128 hex>' -> Checksum.

  Raises:
    ValueError: another shape.
  """
  match = _CHECKSUM_RE.fullmatch(text.strip())
  if not match or len(match.group(2)) != _HEX_LENGTHS[match.group(1)]:
    raise ValueError(
        f'{text!r} is not sha256:<64 hex digits> or sha512:<128 hex digits>'
    )
  return Checksum(match.group(1), match.group(2).lower(), source)


def ExpandUrl(template, version):
  """The URL of `version` from a template naming {version} (or nothing).

  Raises:
    ValueError: not an http(s), ftp or file URL, or a placeholder other
      than {version}.
  """
  try:
    names = {
        name
        for _, name, _, _ in string.Formatter().parse(template)
        if name is not None
    }
  except ValueError as e:
    raise ValueError(f'{template!r} is not a URL template: {e}') from e
  if names - {PLACEHOLDER}:
    raise ValueError(
        f'{template!r} names {", ".join(sorted(names - {PLACEHOLDER}))};'
        ' the only placeholder is {version}'
    )
  url = template.format(version=version)
  if not _URL_RE.fullmatch(url):
    raise ValueError(f'{url!r} is not an http(s), ftp or file URL')
  return url


def ParsePublished(text, algorithm):
  """The digest in a published checksum file ('<hex>' or '<hex>  <file>').

  Raises:
    ValueError: no digest of the algorithm's length first in the file.
  """
  words = text.split()
  digest = words[0].lower() if words else ''
  if len(digest) != _HEX_LENGTHS[algorithm] or not re.fullmatch(
      '[0-9a-f]+', digest
  ):
    raise ValueError(f'not a {algorithm} checksum file: {text[:200]!r}')
  return digest


def Make(
    name,
    version,
    url_template,
    url_flag,
    checksum_text,
    checksum_flag,
    pinned=None,
    published_algorithm=SHA512,
):
  """An Artifact from the flags' values.

  Args:
    name: what it is, for messages.
    version: the version the URL template is expanded with.
    url_template: the URL flag's value.
    url_flag: that flag's name.
    checksum_text: the checksum flag's value ('' for none).
    checksum_flag: that flag's name.
    pinned: {version: sha512 hex} this project knows, or None.
    published_algorithm: the published checksum file's algorithm.

  Returns:
    Artifact.

  Raises:
    ValueError: a malformed URL template or checksum.
  """
  if checksum_text:
    checksum = ParseChecksum(checksum_text)
  elif pinned and version in pinned:
    checksum = Checksum(SHA512, pinned[version], SOURCE_PINNED)
  else:
    checksum = None
  return Artifact(
      name=name,
      version=version,
      url=ExpandUrl(url_template, version),
      url_flag=url_flag,
      checksum_flag=checksum_flag,
      checksum=checksum,
      published_algorithm=published_algorithm,
  )


def Verify(artifact, expected, actual_digest):
  """Raises ArtifactError unless the downloaded file has the expected digest.

  Args:
    artifact: the Artifact downloaded.
    expected: the Checksum it must have.
    actual_digest: hex digest of the downloaded file, same algorithm.
  """
  if actual_digest.strip().lower() == expected.digest:
    return
  raise ArtifactError(
      f'{artifact.name}: checksum mismatch for {artifact.url} (set by'
      f' --{artifact.url_flag}): expected {expected.Text()} ({expected.source}'
      f' checksum), got {expected.algorithm}:{actual_digest.strip()}. The'
      ' file is not the release; fix the mirror, or give the right checksum'
      f' with --{artifact.checksum_flag}=sha256:<hex> or sha512:<hex>.'
  )
