// Verification results in the index (docs/architecture.md §verify/): the latest check of each
// agent, tool, feedback, validation and workflow run, and the subjects due for a (re)check.
//
// The `verifications` table is the index's (schema.cpp, migration 2), and so is every statement
// over it: index/verification_table.hpp reads and writes it, and holds the rules of when a subject
// is due; its flag bits are index/schema.hpp VerificationFlag. The verifier's components name
// those types and functions in their own namespace, through this header.
#pragma once

#include <credence/index/schema.hpp>
#include <credence/index/verification_table.hpp>

namespace credence::verify {

using index::DueQuery;
using index::DueSubject;
using index::SubjectKind;
using index::VerificationFlag;
using index::VerificationFlags;
using index::VerificationRecord;
using index::VerificationStatus;
using Subject = index::VerificationSubject;

using index::due_subjects;
using index::load_verification;
using index::save_verification;
using index::subject_kind_from_string;
using index::verification_status_from_string;

}  // namespace credence::verify
