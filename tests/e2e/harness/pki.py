"""A throwaway CA and a certificate for the website's names, made with
`openssl` at run time; the CLI trusts the CA through NODE_EXTRA_CA_CERTS."""

import subprocess
from pathlib import Path


def make(dir, names):
    dir = Path(dir)
    dir.mkdir(parents=True, exist_ok=True)
    ca_key, ca_cert = dir / "ca.key", dir / "ca.pem"
    key, csr, cert = dir / "site.key", dir / "site.csr", dir / "site.pem"
    ext = dir / "site.ext"
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=pace-hook e2e throwaway CA", "-keyout", str(ca_key), "-out", str(ca_cert))
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=%s" % names[0],
        "-keyout", str(key), "-out", str(csr))
    ext.write_text(
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\nsubjectAltName=%s\n" % ",".join("DNS:" + n for n in names)
    )
    run("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca_cert), "-CAkey", str(ca_key),
        "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out", str(cert))
    return ca_cert, cert, key
