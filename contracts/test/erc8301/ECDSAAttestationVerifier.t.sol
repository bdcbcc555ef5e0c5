// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {WorkflowFixture} from "../utils/WorkflowFixture.sol";
import {IProofVerifier} from "../../src/interfaces/IProofVerifier.sol";
import {IAgentVerifier} from "../../src/interfaces/IAgentVerifier.sol";

contract ECDSAAttestationVerifierTest is WorkflowFixture {
    bytes32 internal constant IN = keccak256("input");
    bytes32 internal constant OUT = keccak256("output");

    function _sig(uint256 key, bytes32 d) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, d);
        return abi.encodePacked(r, s, v);
    }

    // ERC-8274 §proofSystem: "{paradigm}/{variant}"; proofProfile = keccak256(proofSystem, salt).
    function test_ProofSystemAndProfile() public view {
        assertEq(ecdsa.proofSystem(), "attestation/ecdsa");
        assertEq(ecdsa.proofProfile(), keccak256(abi.encodePacked("attestation/ecdsa", keccak256("credence-test"))));
    }

    // ERC-8274 §Interface Detection: IProofVerifier, IAgentVerifier and IERC165.
    function test_SupportsInterface() public view {
        assertTrue(ecdsa.supportsInterface(type(IProofVerifier).interfaceId));
        assertTrue(ecdsa.supportsInterface(type(IAgentVerifier).interfaceId));
        assertTrue(ecdsa.supportsInterface(0x01ffc9a7));
        assertFalse(ecdsa.supportsInterface(0xdeadbeef));
    }

    // ERC-8274 IProofVerifier: a registered attester's signature over (inputHash, outputHash) is valid.
    function test_ProofVerifier_ValidAndInvalid() public {
        bytes memory sig = _sig(attesterKey, ecdsa.attestationDigest(IN, OUT));
        assertTrue(ecdsa.verify(IN, OUT, "", sig));
        assertFalse(ecdsa.verify(IN, keccak256("other"), "", sig)); // bound to the output
        assertFalse(ecdsa.verify(IN, OUT, "", _sig(0xBAD, ecdsa.attestationDigest(IN, OUT)))); // not an attester
        assertFalse(ecdsa.verify(IN, OUT, "", hex"0102")); // malformed
        assertTrue(ecdsa.verify(IN, OUT, abi.encode(attester), sig)); // metadata pins the attester
        assertFalse(ecdsa.verify(IN, OUT, abi.encode(address(1)), sig));
        ecdsa.setAttester(attester, false);
        assertFalse(ecdsa.verify(IN, OUT, "", sig));
    }

    // ERC-8274 IAgentVerifier: signature also binds the task (run) and the agent; digest per §Verification Commitment;
    // VerificationCompleted emitted for passing and failing calls.
    function test_AgentVerifier_DigestAndEvent() public {
        bytes32 task = keccak256("run");
        bytes32 agent = bytes32(uint256(uint160(agentA)));
        bytes memory sig = _sig(attesterKey, ecdsa.agentAttestationDigest(task, agent, IN, OUT));
        bytes32 expected = keccak256(
            abi.encode(
                task,
                agent,
                IN,
                OUT,
                true,
                ecdsa.proofProfile(),
                vm.getBlockTimestamp(),
                abi.encodePacked(address(ecdsa)),
                abi.encode(block.chainid)
            )
        );
        vm.expectEmit(true, true, true, true, address(ecdsa));
        emit IAgentVerifier.VerificationCompleted(
            task,
            agent,
            expected,
            true,
            IN,
            OUT,
            ecdsa.proofProfile(),
            vm.getBlockTimestamp(),
            abi.encodePacked(address(ecdsa)),
            abi.encode(block.chainid)
        );
        (bool valid, bytes32 d) = ecdsa.verify(task, agent, IN, OUT, sig);
        assertTrue(valid);
        assertEq(d, expected);
        (valid,) = ecdsa.verify(task, bytes32(uint256(uint160(agentB))), IN, OUT, sig); // other agent
        assertFalse(valid);
        (valid,) = ecdsa.verify(keccak256("run2"), agent, IN, OUT, sig); // other run
        assertFalse(valid);
    }

    // ERC-8274: only the owner manages attesters.
    function test_SetAttester_OnlyOwner() public {
        vm.prank(agentA);
        vm.expectRevert();
        ecdsa.setAttester(agentA, true);
        ecdsa.setAttester(agentA, true);
        assertTrue(ecdsa.isAttester(agentA));
    }

    // ERC-8274: signatures by random keys never verify, fuzzed.
    function testFuzz_ProofVerifier_RandomSigner(uint256 key, bytes32 i, bytes32 o) public view {
        key = bound(key, 1, 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140);
        vm.assume(key != attesterKey);
        assertFalse(ecdsa.verify(i, o, "", _sig(key, ecdsa.attestationDigest(i, o))));
        assertTrue(ecdsa.verify(i, o, "", _sig(attesterKey, ecdsa.attestationDigest(i, o))));
    }
}
