#if canImport(CLibPQ)
  import Foundation
  import Testing

  #if canImport(Glibc)
    import Glibc
  #endif

  /// A connection that writes raw bytes to an HTTP server (malformed or slow requests a URL
  /// session won't send) and reads what comes back.
  final class RawHTTPConnection {
    let socket: Int32

    /// Connects to 127.0.0.1:`port`.
    init(port: UInt16) throws {
      socket = try loopbackSocket(port: port)  // SyncFuzzTests.swift
    }

    /// Connects to the Unix socket at `path`.
    init(unixPath path: String) throws {
      let made = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      try #require(made >= 0)
      var address = sockaddr_un()
      address.sun_family = sa_family_t(AF_UNIX)
      withUnsafeMutableBytes(of: &address.sun_path) { bytes in
        for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
      }
      let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(made, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      guard result == 0 else {
        close(made)
        throw SyncSocketError(port: 0)
      }
      socket = made
    }

    deinit { close(socket) }

    /// Writes all of `bytes`; `false` when the server closed the connection.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
      var offset = 0
      while offset < bytes.count {
        let written = bytes.withUnsafeBytes {
          send(socket, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
        }
        guard written > 0 else { return false }
        offset += written
      }
      return true
    }

    /// Writes `text`.
    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Reads until the server closes the connection or, with `marker`, until that text came,
    /// within `timeout` seconds; returns what came as text.
    func read(until marker: String? = nil, timeout: Int = 20) -> String {
      var limit = timeval(tv_sec: timeout, tv_usec: 0)
      setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      let deadline = Date(timeIntervalSinceNow: TimeInterval(timeout))
      var answer = Data()
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while marker.map({ !String(decoding: answer, as: UTF8.self).contains($0) }) ?? true,
        Date() < deadline
      {
        let count = recv(socket, &buffer, buffer.count, 0)
        if count <= 0 { break }
        answer.append(contentsOf: buffer[0..<count])
      }
      return String(decoding: answer, as: UTF8.self)
    }

    /// Whether the server closed the connection (a read sees its end) within `timeout`
    /// seconds.
    func closesWithin(_ timeout: Int) -> Bool {
      var limit = timeval(tv_sec: timeout, tv_usec: 0)
      setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      var buffer = [UInt8](repeating: 0, count: 4096)
      let deadline = Date(timeIntervalSinceNow: TimeInterval(timeout))
      while Date() < deadline {
        let count = recv(socket, &buffer, buffer.count, 0)
        if count == 0 { return true }
        if count < 0 { return errno == ECONNRESET }
      }
      return false
    }

    /// Whether the server closed the connection already (checked without waiting).
    var isClosedNow: Bool {
      var byte: UInt8 = 0
      let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
      return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// The status code of an HTTP answer's first line (`nil` when there is none).
    static func status(_ answer: String) -> Int? {
      guard answer.hasPrefix("HTTP/1.1 ") else { return nil }
      return Int(answer.dropFirst(9).prefix(3))
    }
  }
#endif
