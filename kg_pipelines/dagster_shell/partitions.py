from dagster import DynamicPartitionsDefinition

# One partition per knowledge collection (the inbox sub-folder); the key is the collection name.
# A run of a partition syncs that collection: new and changed documents are processed, unchanged
# ones cost nothing, removed ones are taken out. Never one partition per document.
collections_partitions = DynamicPartitionsDefinition(name="collections")

# One partition per page bundle of the knowledge merger (its file stem or folder name under
# <inbox>/pages/); the sensor adds them.
page_bundles_partitions = DynamicPartitionsDefinition(name="page_bundles")
