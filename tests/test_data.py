"""nbgrad.utils.data against torch.utils.data: datasets, samplers, collation and the
DataLoader (values, types, lengths and errors). Random orders differ from PyTorch's (another
generator), so shuffling is checked for what it promises: a permutation, reproducible after
``manual_seed``, new each epoch."""

import collections
import warnings

import numpy as np
import pytest
from parity import check, check_error, torch

import nbgrad as ng


def data(M):
    return M.utils.data


def xy(M, n=7):
    return M.arange(2.0 * n).view(n, 2), M.arange(n)


def batches(M, **options):
    return list(data(M).DataLoader(data(M).TensorDataset(*xy(M)), **options))


class Squares:
    """A map-style dataset written the way users write one (a plain class works too)."""

    def __init__(self, M, n):
        self.M, self.n = M, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": self.M.tensor([float(i), float(i * i)]), "y": i}


def stream(M, n):
    class Stream(data(M).IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Stream()


# -- datasets ------------------------------------------------------------------------------
def test_tensor_dataset_items_and_length():
    check(lambda M: list(data(M).TensorDataset(*xy(M))[3]))
    check(lambda M: len(data(M).TensorDataset(*xy(M))))
    check(lambda M: list(data(M).TensorDataset(*xy(M))[-1]))
    check(lambda M: list(data(M).TensorDataset(*xy(M))[1:3]))


def test_tensor_dataset_size_mismatch():
    check_error(lambda M: data(M).TensorDataset(M.zeros(3), M.zeros(4)))


def test_dataset_base_and_concat():
    check_error(lambda M: data(M).Dataset()[0])
    check_error(lambda M: data(M).IterableDataset())

    def concat(M):
        a = data(M).TensorDataset(M.arange(3))
        b = data(M).TensorDataset(M.arange(10, 14))
        c = a + b
        return [len(c), c.cumulative_sizes, [c[i][0] for i in range(-7, 7)]]
    check(concat)
    check_error(lambda M: data(M).ConcatDataset([]))
    check_error(lambda M: data(M).ConcatDataset([data(M).TensorDataset(M.arange(3))])[-4])
    check_error(lambda M: data(M).ConcatDataset([stream(M, 2)]))


def test_chain_and_subset():
    check(lambda M: [list(stream(M, 2) + stream(M, 3)), len(stream(M, 2) + stream(M, 3))])

    def subset(M):
        s = data(M).Subset(data(M).TensorDataset(M.arange(10)), [7, 2, 5])
        return [len(s), s[0][0], s[-1][0], s[[0, 2]][0]]
    check(subset)


# -- random_split --------------------------------------------------------------------------
@pytest.mark.parametrize("lengths", [[3, 4], [0.5, 0.5], [0.3, 0.3, 0.4], [1.0], [7, 0], [0.1, 0.9]])
def test_random_split_lengths(lengths):
    def lengths_of(M):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [len(s) for s in data(M).random_split(data(M).TensorDataset(M.arange(7)), lengths)]
    check(lengths_of)


def test_random_split_is_a_partition_and_seeded():
    def split():
        parts = ng.utils.data.random_split(range(50), [0.6, 0.2, 0.2])
        return [list(p) for p in parts]
    ng.manual_seed(3)
    first = split()
    assert sorted(i for part in first for i in part) == list(range(50))
    ng.manual_seed(3)
    assert split() == first
    assert split() != first


def test_random_split_warns_and_errors():
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        ng.utils.data.random_split(range(3), [1.0, 0.0])
    check_error(lambda M: data(M).random_split(range(7), [3, 3]))
    check_error(lambda M: data(M).random_split(range(7), [1.5, -0.5]))


# -- samplers ------------------------------------------------------------------------------
def test_sequential_sampler():
    check(lambda M: [list(data(M).SequentialSampler(range(5))), len(data(M).SequentialSampler(range(5)))])


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("size", [1, 2, 3, 5, 6])
def test_batch_sampler(size, drop_last):
    check(lambda M: [list(data(M).BatchSampler(range(5), size, drop_last)),
                     len(data(M).BatchSampler(range(5), size, drop_last))])


@pytest.mark.parametrize("args", [(0, False), (True, False), (2.0, False), (2, 1), (2, None)])
def test_batch_sampler_errors(args):
    check_error(lambda M: data(M).BatchSampler(range(5), *args))


def test_random_sampler_is_a_seeded_permutation():
    sampler = ng.utils.data.RandomSampler(range(20))
    ng.manual_seed(0)
    first, second = list(sampler), list(sampler)
    assert sorted(first) == sorted(second) == list(range(20)) and first != second
    ng.manual_seed(0)
    assert list(sampler) == first
    assert len(sampler) == 20


@pytest.mark.parametrize("num_samples", [3, 20, 45])
def test_random_sampler_num_samples(num_samples):
    without = list(ng.utils.data.RandomSampler(range(20), num_samples=num_samples))
    assert len(without) == num_samples
    # PyTorch: whole permutations first, then the start of one more
    for start in range(0, num_samples - num_samples % 20, 20):
        assert sorted(without[start:start + 20]) == list(range(20))
    assert len(set(without[num_samples - num_samples % 20:])) == num_samples % 20
    drawn = list(ng.utils.data.RandomSampler(range(5), replacement=True, num_samples=num_samples))
    assert len(drawn) == num_samples and set(drawn) <= set(range(5))
    assert all(type(i) is int for i in drawn + without)


@pytest.mark.parametrize("kwargs", [{"replacement": 1}, {"num_samples": 0}, {"num_samples": 2.0}])
def test_random_sampler_errors(kwargs):
    check_error(lambda M: data(M).RandomSampler(range(5), **kwargs))


def test_subset_random_sampler():
    values = list(ng.utils.data.SubsetRandomSampler([10, 20, 30, 40]))
    assert sorted(values) == [10, 20, 30, 40]


@pytest.mark.skipif(not hasattr(ng, "Generator"), reason="nbgrad.Generator is not there yet")
def test_generator_makes_shuffles_reproducible():
    def order(seed):
        g = ng.Generator().manual_seed(seed)
        loader = ng.utils.data.DataLoader(range(30), batch_size=4, shuffle=True, generator=g)
        return [b.tolist() for b in loader]
    assert order(1) == order(1) != order(2)
    g = ng.Generator().manual_seed(5)
    parts = [list(p) for p in ng.utils.data.random_split(range(10), [5, 5], generator=g)]
    g = ng.Generator().manual_seed(5)
    assert parts == [list(p) for p in ng.utils.data.random_split(range(10), [5, 5], generator=g)]


# -- collation -----------------------------------------------------------------------------
Point = collections.namedtuple("Point", "x y")

SAMPLES = {
    "tensors": lambda M: [M.tensor([1.0, 2.0]), M.tensor([3.0, 4.0])],
    "0-d tensors": lambda M: [M.tensor(1), M.tensor(2)],
    "ints": lambda M: [1, 2, 3],
    "floats": lambda M: [1.5, 2.0],
    "bools": lambda M: [True, False],
    "numpy arrays": lambda M: [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
    "numpy int arrays": lambda M: [np.arange(3), np.arange(3)],
    "numpy scalars": lambda M: [np.float64(1.5), np.float64(2.5)],
    "numpy int scalars": lambda M: [np.int32(1), np.int32(2)],
    "strings": lambda M: ["a", "b"],
    "tuples": lambda M: [(M.tensor([1.0]), 0), (M.tensor([2.0]), 1)],
    "lists": lambda M: [[1, 2.5], [3, 4.5]],
    "dicts": lambda M: [{"a": M.tensor(1.0), "b": [1, 2]}, {"a": M.tensor(2.0), "b": [3, 4]}],
    "ordered dicts": lambda M: [collections.OrderedDict(x=1), collections.OrderedDict(x=2)],
    "namedtuples": lambda M: [Point(1.0, M.tensor([1])), Point(2.0, M.tensor([2]))],
    "nested": lambda M: [{"p": (1, [2.0])}, {"p": (3, [4.0])}],
}


@pytest.mark.parametrize("name", SAMPLES)
def test_default_collate(name):
    def collate(M):
        out = data(M).default_collate(SAMPLES[name](M))
        return [type(out).__name__, out]
    check(collate)


@pytest.mark.parametrize("name", SAMPLES)
def test_default_convert(name):
    def convert(M):
        out = data(M).default_convert(SAMPLES[name](M)[0])
        return [type(out).__name__, out]
    check(convert)


@pytest.mark.parametrize("batch", [
    lambda M: [object(), object()],
    lambda M: [np.array(["a"]), np.array(["b"])],
    lambda M: [[1, 2], [3]],
    lambda M: [M.zeros(2), M.zeros(3)],
])
def test_default_collate_errors(batch):
    check_error(lambda M: data(M).default_collate(batch(M)))


def test_collated_batches_keep_autograd():
    w = ng.tensor([1.0, 2.0], requires_grad=True)
    batch = ng.utils.data.default_collate([w * 2, w * 3])
    assert type(batch.grad_fn).__name__ == "StackBackward0"
    batch.sum().backward()
    assert w.grad.tolist() == [5.0, 5.0]


# -- DataLoader ----------------------------------------------------------------------------
@pytest.mark.parametrize("options", [
    {}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": 7},
    {"batch_size": 10}, {"batch_size": 10, "drop_last": True}, {"batch_size": None},
    {"batch_size": 2, "num_workers": 2},
])
def test_loader_batches_and_length(options):
    check(lambda M: [batches(M, **options),
                     len(data(M).DataLoader(data(M).TensorDataset(*xy(M)), **options))])


def test_loader_of_dicts_and_plain_datasets():
    check(lambda M: list(data(M).DataLoader(Squares(M, 5), batch_size=2)))
    check(lambda M: list(data(M).DataLoader(list(range(5)), batch_size=2)))
    check(lambda M: list(data(M).DataLoader([np.ones(2), np.zeros(2)], batch_size=None)))


def test_loader_with_samplers_and_collate_fn():
    check(lambda M: batches(M, sampler=[6, 0, 3], batch_size=2))
    check(lambda M: batches(M, batch_sampler=[[1, 2], [0], [6, 5, 4]]))
    check(lambda M: len(data(M).DataLoader(range(7), batch_sampler=[[1, 2], [0]])))
    check(lambda M: list(data(M).DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))))


@pytest.mark.parametrize("options", [{}, {"batch_size": 2}, {"batch_size": 2, "drop_last": True},
                                     {"batch_size": None}, {"batch_size": 5}])
def test_loader_over_iterable_dataset(options):
    check(lambda M: [list(data(M).DataLoader(stream(M, 5), **options)),
                     len(data(M).DataLoader(stream(M, 5), **options))])


def test_loader_shuffles_a_new_permutation_each_epoch():
    loader = ng.utils.data.DataLoader(ng.utils.data.TensorDataset(ng.arange(40)), batch_size=8,
                                      shuffle=True)
    ng.manual_seed(11)
    epochs = [[b[0].tolist() for b in loader] for _ in range(2)]
    flat = [[i for batch in e for i in batch] for e in epochs]
    assert sorted(flat[0]) == sorted(flat[1]) == list(range(40)) and flat[0] != flat[1]
    assert all(len(b) == 8 for e in epochs for b in e)
    ng.manual_seed(11)
    assert [b[0].tolist() for b in loader] == epochs[0]


@pytest.mark.parametrize("options", [
    {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2}, {"persistent_workers": True},
    {"sampler": [0], "shuffle": True},
    {"batch_sampler": [[0]], "batch_size": 2}, {"batch_sampler": [[0]], "shuffle": True},
    {"batch_sampler": [[0]], "drop_last": True}, {"batch_size": None, "drop_last": True},
    {"batch_size": 0}, {"batch_size": 2, "drop_last": 1},
])
def test_loader_option_errors(options):
    check_error(lambda M: data(M).DataLoader(range(3), **options))


@pytest.mark.parametrize("options", [{"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}])
def test_loader_iterable_dataset_errors(options):
    check_error(lambda M: data(M).DataLoader(stream(M, 3), **options))


@pytest.mark.parametrize("name", ["batch_size", "sampler", "dataset", "drop_last"])
def test_loader_options_fixed_after_init(name):
    def set_it(M):
        loader = data(M).DataLoader(range(3))
        setattr(loader, name, 1)
    check_error(set_it)
    loader = ng.utils.data.DataLoader(range(3))
    loader.num_workers = 2  # not one of the fixed ones, as in PyTorch


def test_get_worker_info_in_the_main_process():
    assert ng.utils.data.get_worker_info() is None is torch.utils.data.get_worker_info()


def test_trains_a_model_from_a_loader():
    ng.manual_seed(0)
    x = ng.randn(64, 3)
    y = x @ ng.tensor([[1.0], [-2.0], [0.5]])
    model = ng.nn.Linear(3, 1)
    opt = ng.optim.SGD(model.parameters(), lr=0.1)
    loader = ng.utils.data.DataLoader(ng.utils.data.TensorDataset(x, y), batch_size=16, shuffle=True)
    for _ in range(30):
        for xb, yb in loader:
            opt.zero_grad()
            loss = ((model(xb) - yb) ** 2).mean()
            loss.backward()
            opt.step()
    assert loss.item() < 1e-3
