# kiln (data/torch_find_spec.py, run as `python -c <this>` by src/binary/extension_torch.cpp): torch's
# package folder for this interpreter, found without importing torch; an empty line when none.
import importlib.util as u
s = u.find_spec('torch')
print(list(s.submodule_search_locations)[0] if s and s.submodule_search_locations else '')
