/// Picks the transport for an endpoint (the transport helper replaces this file).
public enum Transports {
    public static func make(endpoint: RemoteEndpoint, timeouts: TransportTimeouts) -> any HTTPTransport {
        SocketTransport(endpoint: endpoint, timeouts: timeouts)
    }
}
