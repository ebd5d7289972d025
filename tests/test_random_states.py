"""One serialisation of numpy random sources (rosenblatt._core.random_states): the
engine's training states (rng_to_state / rng_from_state) and the model files' nodes
(``random_state``, ``generator``) both restore a source exactly, and both refuse a
crafted state with a ValueError before numpy reads it."""

import json

import numpy as np
import pytest

from rosenblatt._core.random_states import BIT_GENERATORS, rng_from_state, rng_to_state
from rosenblatt.persistence.decode import Reader
from rosenblatt.persistence.encode import _Writer


def _sources():
    """A RandomState and a Generator on each bit generator, each moved on from its seed
    (a cached Gaussian, a cached 32-bit half, a buffer part used)."""
    legacy = np.random.RandomState(7)
    legacy.normal()  # has_gauss: 1
    sources = {"RandomState": legacy}
    for name in BIT_GENERATORS:
        generator = np.random.Generator(getattr(np.random, name)(11))
        generator.integers(0, 2**32, dtype=np.uint32)  # has_uint32: 1
        generator.random(3)
        sources[name] = generator
    return sources


SOURCES = sorted(_sources())


def _draws(rng):
    if isinstance(rng, np.random.Generator):
        return rng.integers(0, 2**32, size=8, dtype=np.uint32).tolist() + [rng.normal()]
    return rng.randint(0, 2**31, size=8).tolist() + [rng.normal()]


# ---------------------------------------------------------------------- the engine's form
def _engine_round_trip(rng):
    meta, arrays = rng_to_state(rng)
    return rng_from_state(json.loads(json.dumps(meta)), arrays)  # the meta as stored: JSON


def _crafted_engine_state(rng, change):
    meta, arrays = rng_to_state(rng)
    meta = json.loads(json.dumps(meta))
    change(meta["state"], arrays)
    return meta, arrays


# ---------------------------------------------------------------------- the model file's form
def _file_node(rng):
    writer = _Writer()
    node = json.loads(json.dumps(writer.value(rng, "random_state")))
    return node, writer.arrays


def _read(node, arrays):
    return Reader(lambda member: arrays[int(member[len("arrays/") : -len(".npy")])]).value(node)


def _state_items(node):
    """The fields of a saved source: the items of its legacy tuple or of its state dict."""
    return node["state"]["items"]


@pytest.mark.parametrize("name", SOURCES)
def test_the_engine_restores_a_source_exactly(name):
    rng = _sources()[name]
    again = _engine_round_trip(rng)
    assert type(again) is type(rng)
    assert _draws(again) == _draws(rng)


@pytest.mark.parametrize("name", SOURCES)
def test_a_model_file_restores_a_source_exactly(name):
    rng = _sources()[name]
    node, arrays = _file_node(rng)
    assert node["$"] == ("random_state" if name == "RandomState" else "generator")
    again = _read(node, arrays)
    assert type(again) is type(rng)
    assert _draws(again) == _draws(rng)


def test_a_random_state_is_saved_as_its_legacy_tuple():
    """The layout files have always had: what get_state(legacy=True) gives."""
    rng = _sources()["RandomState"]
    node, arrays = _file_node(rng)
    name, key, pos, has_gauss, gauss = _state_items(node)
    expected = rng.get_state(legacy=True)
    assert (name, pos, has_gauss, gauss) == (expected[0], *expected[2:])
    np.testing.assert_array_equal(arrays[int(key["member"][len("arrays/") : -4])], expected[1])


# ---------------------------------------------------------------------- crafted states
def _set_pos(state, arrays):
    state["state"]["pos"] = 10**6  # numpy's MT19937 would read key[10**6]


def _unknown_bit_generator(state, arrays):
    state["bit_generator"] = "Threefry"


@pytest.mark.parametrize("name", ["RandomState", "MT19937"])
def test_the_engine_refuses_a_position_past_the_key(name):
    meta, arrays = _crafted_engine_state(_sources()[name], _set_pos)
    with pytest.raises(ValueError, match=r"pos must be an int from 0 to 624"):
        rng_from_state(meta, arrays)


@pytest.mark.parametrize("name", ["RandomState", "PCG64"])
def test_the_engine_refuses_an_unknown_bit_generator(name):
    meta, arrays = _crafted_engine_state(_sources()[name], _unknown_bit_generator)
    with pytest.raises(ValueError, match="not the state of a numpy random source"):
        rng_from_state(meta, arrays)


def test_the_engine_refuses_a_key_of_another_shape():
    def shorter_key(state, arrays):
        arrays[state["state"]["key"]["$array"]] = np.zeros(3, dtype=np.uint32)

    meta, arrays = _crafted_engine_state(_sources()["MT19937"], shorter_key)
    with pytest.raises(ValueError, match=r"key must be a uint32 array of shape \(624,\)"):
        rng_from_state(meta, arrays)


def test_a_model_file_refuses_a_position_past_the_key():
    node, arrays = _file_node(_sources()["RandomState"])
    _state_items(node)[2] = 10**6
    with pytest.raises(ValueError, match=r"pos must be an int from 0 to 624"):
        _read(node, arrays)
    node, arrays = _file_node(_sources()["MT19937"])
    inner = dict(_state_items(node))["state"]
    for item in inner["items"]:
        if item[0] == "pos":
            item[1] = 10**6
    with pytest.raises(ValueError, match=r"pos must be an int from 0 to 624"):
        _read(node, arrays)


@pytest.mark.parametrize("name", ["RandomState", "PCG64"])
def test_a_model_file_refuses_an_unknown_bit_generator(name):
    node, arrays = _file_node(_sources()[name])
    items = _state_items(node)
    if name == "RandomState":
        items[0] = "Threefry"
    else:
        for item in items:
            if item[0] == "bit_generator":
                item[1] = "Threefry"
    refused = "not a legacy MT19937 state|not the state of a numpy random source"
    with pytest.raises(ValueError, match=refused):
        _read(node, arrays)


def test_a_training_state_refuses_a_crafted_random_source():
    """The engine's states rebuild their source through rng_from_state."""
    from rosenblatt.engine.primal import PrimalState

    state = PrimalState(
        np.array([[2.0]]), np.array([0.0]), np.array([[2.0]]), np.array([0.0]), np.array([2])
    )
    state.rng = _sources()["RandomState"]
    meta, arrays = state.to_state()
    assert _draws(PrimalState.from_state(meta, arrays).rng) == _draws(state.rng)
    meta["rng"]["state"]["state"]["pos"] = 625
    with pytest.raises(ValueError, match="pos must be an int from 0 to 624"):
        PrimalState.from_state(meta, arrays)
