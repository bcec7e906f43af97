from dagster import DynamicPartitionsDefinition

# One partition per document; the key is the document id: "<collection>/<relative path>".
documents_partitions = DynamicPartitionsDefinition(name="documents")
