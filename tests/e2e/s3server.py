"""A real S3-compatible server on loopback for the team cache: moto's standalone server with
authentication on, a bucket, a read-write key (a CI job's) and a read-only one (a developer's).
Used by tests/e2e/test_team_cache.py and bench/team_cache.py."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

BUCKET = "team-cache"
MOTO = Path(sys.executable).parent / "moto_server"
# Calls made before authentication is enforced: the IAM users, keys and policies below.
SETUP_CALLS = 6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert time.monotonic() < deadline, f"nothing listens on {port}"
            time.sleep(0.1)


class S3:
    """A moto server with a bucket, a read-write key and a read-only one."""

    def __init__(self, tmp: Path):
        import boto3

        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": str(SETUP_CALLS)}
        self.log = (tmp / "moto.log").open("w")
        self.proc = subprocess.Popen(
            [str(MOTO), "-H", "127.0.0.1", "-p", str(self.port)],
            env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        wait_listening(self.port)
        iam = boto3.client(
            "iam", endpoint_url=self.endpoint, region_name="us-east-1",
            aws_access_key_id="setup", aws_secret_access_key="setup",
        )

        def user(name: str, actions: list[str]) -> dict:
            iam.create_user(UserName=name)
            key = iam.create_access_key(UserName=name)["AccessKey"]
            policy = {"Version": "2012-10-17",
                      "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}
            iam.put_user_policy(UserName=name, PolicyName=name, PolicyDocument=json.dumps(policy))
            return {"id": key["AccessKeyId"], "secret": key["SecretAccessKey"]}

        self.writer = user("ci", ["s3:*"])
        # What AWS's managed read-only policy allows.
        self.reader = user("dev", ["s3:Get*", "s3:List*"])
        self.client(self.writer).create_bucket(Bucket=BUCKET)

    def client(self, key: dict):
        import boto3

        return boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1",
            aws_access_key_id=key["id"], aws_secret_access_key=key["secret"],
        )

    def objects(self, prefix: str) -> list[str]:
        pages = self.client(self.writer).get_paginator("list_objects_v2").paginate(
            Bucket=BUCKET, Prefix=prefix
        )
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []))

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.log.close()

    def env(self, key: dict, uri: str, endpoint: str | None = None) -> dict:
        """The environment a code-intel process reads the cache at `uri` with, as `key`."""
        return {
            "AWS_ACCESS_KEY_ID": key["id"],
            "AWS_SECRET_ACCESS_KEY": key["secret"],
            "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": endpoint or self.endpoint,
            "AWS_ALLOW_HTTP": "true",
            "CODE_INTEL_EMBEDDING_CACHE_URI": uri,
        }
