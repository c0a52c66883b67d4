import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CMicroHTTPD)
  import CMicroHTTPD

  /// A libmicrohttpd connection, held to resume it from another thread.
  // Safety: libmicrohttpd's MHD_resume_connection may be called from any thread; the holders
  // use the pointer only while libmicrohttpd keeps the connection (under their lock).
  package struct HTTPConnectionHandle: @unchecked Sendable, Hashable {
    package var pointer: OpaquePointer

    package init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Resumes the suspended connection.
    package func resume() { MHD_resume_connection(pointer) }
  }
#endif
