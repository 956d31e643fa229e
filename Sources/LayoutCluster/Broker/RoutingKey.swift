import LayoutServer
import LayoutWire

/// The key a client's request works on, in the namespace the single daemon would look it up in: the
/// caller's own, except for an admin's `query` that names another (`RequestHandler.decode`).
enum RoutingKey {
    /// nil for ops that work on no kept layout, and bodies whose `layout` cannot be read.
    static func key(of route: RequestRoute, body: HeldBody, caller: Caller?) -> LayoutKey? {
        guard let operation = route.operation, operation.isKeyed, let name = route.layout else { return nil }
        guard let caller else { return LayoutKey(name: name) }
        if caller.isAdmin, operation == .query, let namespace = namedNamespace(in: body) {
            return LayoutKey(namespace: namespace, name: name)
        }
        return LayoutKey(namespace: caller.namespace, name: name)
    }

    /// The `namespace` an admin's `query` names. The route's scan does not read it; decoding the body
    /// whole costs only admins' queries (a few, small bodies) and reads it exactly as the worker will.
    /// A body that does not decode is answered with its error by whichever worker gets it.
    private static func namedNamespace(in body: HeldBody) -> String? {
        let request = body.withUnsafeBytes { try? RequestDecoder().decode($0) }
        guard case .query(let query)? = request?.operation else { return nil }
        return query.namespace
    }
}
