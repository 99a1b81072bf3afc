"""Writes the files the import tests read, each made by its own tool:
DIR/urls.yaml by urlwatch (its --add command) and DIR/backup.zip by
changedetection.io (its datastore and its backup function).
Usage: make_exports.py DIR"""
import glob
import os
import shutil
import subprocess
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
bin_dir = os.path.dirname(sys.executable)

# urlwatch: jobs added through its command line, saved as it saves them.
home = os.path.join(out, "urlwatch-home")
os.makedirs(home, exist_ok=True)
urls = os.path.join(out, "urls.yaml")
for job in [
    "url=https://93.184.215.14/shop,name=Shop,filter=css:div.price",
    "command=df -h,name=Disk",
    "url=https://93.184.215.14/table,filter=xpath://table[1],max_tries=3",
]:
    subprocess.run(
        [os.path.join(bin_dir, "urlwatch"), "--urls", urls, "--config", os.path.join(home, "urlwatch.yaml"),
         "--cache", os.path.join(home, "cache.db"), "--add", job],
        check=True, stdout=subprocess.DEVNULL, env={**os.environ, "HOME": home},
    )

# changedetection.io: a datastore with its own code, then its backup.
from changedetectionio.blueprint.backups import create_backup  # noqa: E402
from changedetectionio.store import ChangeDetectionStore  # noqa: E402

datastore = os.path.join(out, "datastore")
store = ChangeDetectionStore(datastore_path=datastore, include_default_watches=False)
store.add_watch(url="https://93.184.215.14/prices", extras={
    "title": "Prices", "include_filters": ["#price"], "ignore_text": ["Updated at"],
    "time_between_check": {"weeks": None, "days": None, "hours": None, "minutes": 10, "seconds": None},
    "time_between_check_use_default": False, "headers": {"Authorization": "Bearer secret-token"}, "paused": True,
})
store.add_watch(url="https://93.184.215.14/news", extras={"include_filters": ["xpath://div[@id='news']"]})
store.add_watch(url="https://93.184.215.14/plain")
store.commit()
create_backup(datastore, store.data["watching"])
shutil.copy(sorted(glob.glob(os.path.join(datastore, "*.zip")))[-1], os.path.join(out, "backup.zip"))
sys.stdout.flush()
# The store's background threads would keep the interpreter alive.
os._exit(0)
