import Testing
@testable import LayoutCluster

@Suite struct AdvertisedEndpointTests {
    @Test(arguments: ["tcp://0.0.0.0:5570", "tcp://*:5570", "tcp://[::]:5570"])
    func aWildcardBindAdvertisesTheMachinesAddress(bound: String) {
        #expect(AdvertisedEndpoint.forBound(bound, hostAddress: { "10.1.2.3" }) == "tcp://10.1.2.3:5570")
    }

    @Test(arguments: ["tcp://127.0.0.1:5570", "tcp://10.0.0.5:41234", "ipc:///tmp/w0", "tcp://worker-0.layoutd:5570"])
    func aSpecificBindIsAdvertisedAsItIs(bound: String) {
        #expect(AdvertisedEndpoint.forBound(bound, hostAddress: { "10.1.2.3" }) == bound)
    }

    @Test func aMachineWithoutAnAddressAdvertisesTheBind() {
        #expect(AdvertisedEndpoint.forBound("tcp://0.0.0.0:5570", hostAddress: { nil }) == "tcp://0.0.0.0:5570")
    }

    @Test func theMachinesAddressIsIPv4AndNotLoopback() {
        // A machine with no interface but lo (a bare network namespace) has none to give.
        guard let address = AdvertisedEndpoint.firstNonLoopbackIPv4() else { return }
        let parts = address.split(separator: ".").compactMap { UInt8($0) }
        #expect(parts.count == 4)
        #expect(parts.first != 127)
    }
}
