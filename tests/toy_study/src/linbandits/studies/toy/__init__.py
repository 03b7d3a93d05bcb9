"""A toy study: uniform exploration on a two-armed linear instance. It exists to
prove the study contract (tests/test_adding_a_study.py): copied into a fresh
copy of the repository, it runs through the real pipeline touching no file of
another study, with no rules file of its own."""
from linbandits.study import Study

STUDY = Study(
    name="toy",
    paper="A toy paper: uniform exploration finds the better of two arms",
    algorithms={"Toy-Uniform": "linbandits.studies.toy.toy:ToyUniform"},
    families={"toy_two_arms": "linbandits.studies.toy.toy:toy_two_arms"},
    products="linbandits.studies.toy.products:products",
)
