import Foundation
import KuraSyncCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension SyncError {
  /// What a failed request to `server` means: an untrusted TLS certificate, or the server out
  /// of reach.
  package static func transport(_ error: any Error, server: URL) -> SyncError {
    let underlying = error as NSError
    let reason = underlying.localizedDescription
    let certificateCodes = [
      NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
      NSURLErrorServerCertificateHasUnknownRoot, NSURLErrorServerCertificateNotYetValid,
      NSURLErrorSecureConnectionFailed,
    ]
    // FoundationNetworking (libcurl) reports code -1 with curl's text ("SSL certificate
    // problem: self-signed certificate"); Apple platforms report the codes.
    if certificateCodes.contains(underlying.code)
      || reason.range(of: "certificate", options: .caseInsensitive) != nil
    {
      return SyncError(
        .untrustedServer,
        message:
          "Can't sync with \(server.absoluteString): its TLS certificate is not trusted here "
          + "(\(reason)). Add the server's certificate, or the CA that signed it, to this "
          + "system's trust store (on Linux: copy it into /usr/local/share/ca-certificates/ "
          + "and run update-ca-certificates), or give the server a certificate from a CA this "
          + "system trusts. Local saves are kept.",
        underlying: error)
    }
    return SyncError(
      .offline,
      message:
        "Can't reach the sync server at \(server.absoluteString) (\(reason)). Local saves are "
        + "kept and sent when it is back.",
      underlying: error)
  }
}
