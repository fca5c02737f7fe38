# Generated parts of the docs (included by the Makefile).
#   make params-doc   rewrites the parameter reference of docs/scenarios.md
#                     from `mtcsim params --markdown` (mk/params_doc.sh;
#                     tests/sh_docs_params.sh fails while they differ)
.PHONY: params-doc
params-doc: $(BUILD)/mtcsim
	@sh mk/params_doc.sh $(BUILD) write
